package dev.mcpgate.spring.review;

import dev.mcpgate.webstack.ToolExceptionsContract;
import org.apache.catalina.webresources.TomcatURLStreamHandlerFactory;
import org.junit.jupiter.api.BeforeAll;

/** {@link ToolExceptionsContract} on Spring AI 2.0.1's WebMVC server (Tomcat). */
class ToolExceptionsOnWebMvcReviewTest extends ToolExceptionsContract {
  @BeforeAll
  static void oneUrlHandlerFactoryForManyTomcats() {
    TomcatURLStreamHandlerFactory.disable();
  }

  @Override
  protected Class<?> openSecurity() {
    return ReviewApps.OpenSecurity.class;
  }
}
