package dev.mcpgate.testkit.junit;

import dev.mcpgate.testkit.GateChecks;
import io.modelcontextprotocol.client.McpSyncClient;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * The extension behind {@link McpGateChecks}: finds the server under test, makes the {@link
 * GateChecks} (once per test class), hands them to {@link GatedToolsTest}, and writes the report
 * after the class.
 */
public final class McpGateChecksExtension implements ParameterResolver, AfterAllCallback {
  private static final System.Logger LOG = System.getLogger(McpGateChecksExtension.class.getName());
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(McpGateChecksExtension.class);

  @McpGateChecks
  private static final class Defaults {}

  /**
   * @return the class's options, or the defaults
   */
  static McpGateChecks options(Class<?> testClass) {
    return AnnotationSupport.findAnnotation(testClass, McpGateChecks.class)
        .orElseGet(() -> Defaults.class.getAnnotation(McpGateChecks.class));
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == GateChecks.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    ExtensionContext classContext = classContext(context);
    Object instance = context.getTestInstance().orElse(null);
    return classContext
        .getStore(NS)
        .getOrComputeIfAbsent(GateChecks.class, k -> make(context, instance), GateChecks.class);
  }

  private static ExtensionContext classContext(ExtensionContext context) {
    ExtensionContext c = context;
    while (c.getTestMethod().isPresent() && c.getParent().isPresent()) {
      c = c.getParent().get();
    }
    return c;
  }

  private static GateChecks make(ExtensionContext context, Object instance) {
    Class<?> testClass = context.getRequiredTestClass();
    McpGateChecks options = options(testClass);
    Object server = serverUnderTest(testClass, instance);
    GateChecks checks;
    if (server instanceof McpSyncClient client) {
      checks = GateChecks.of(client);
    } else if (server != null && Spring.isApplicationContext(server)) {
      checks = closing(Spring.checks(server, options.tenant()), context);
    } else if (server == null && Spring.present()) {
      checks = Spring.checksOfSpringExtension(context, options.tenant());
      if (checks == null) {
        throw noServer(testClass);
      }
      closing(checks, context);
    } else if (server == null) {
      throw noServer(testClass);
    } else {
      throw new ExtensionConfigurationException(
          "@McpServerUnderTest in "
              + testClass.getName()
              + " gave a "
              + server.getClass().getName()
              + "; give an initialized McpSyncClient"
              + " (or a Spring ApplicationContext, with spring-context on the test class path)");
    }
    checks.concurrentCopies(options.concurrentCopies());
    if (instance instanceof GatedToolsTest t) {
      t.configureGateChecks(checks);
    }
    return checks;
  }

  /** The client the kit made is closed with the test class (JUnit closes AutoCloseable values). */
  private static GateChecks closing(GateChecks checks, ExtensionContext context) {
    AutoCloseable close = () -> checks.client().closeGracefully();
    classContext(context).getStore(NS).put(McpSyncClient.class, close);
    return checks;
  }

  private static ExtensionConfigurationException noServer(Class<?> testClass) {
    return new ExtensionConfigurationException(
        testClass.getName()
            + " has no server under test:"
            + " annotate a field or a method without parameters with @McpServerUnderTest (an"
            + " initialized McpSyncClient), or run the class with Spring's SpringExtension"
            + " (@SpringBootTest(webEnvironment = RANDOM_PORT))");
  }

  private static Object serverUnderTest(Class<?> testClass, Object instance) {
    List<Field> fields = AnnotationSupport.findAnnotatedFields(testClass, McpServerUnderTest.class);
    List<Method> methods =
        AnnotationSupport.findAnnotatedMethods(
            testClass, McpServerUnderTest.class, HierarchyTraversalMode.TOP_DOWN);
    if (fields.size() + methods.size() > 1) {
      throw new ExtensionConfigurationException(
          testClass.getName()
              + ": more than one"
              + " @McpServerUnderTest: "
              + fields
              + " "
              + methods);
    }
    try {
      if (!fields.isEmpty()) {
        Field f = fields.get(0);
        f.setAccessible(true);
        return f.get(Modifier.isStatic(f.getModifiers()) ? null : instance);
      }
      if (!methods.isEmpty()) {
        Method m = methods.get(0);
        if (m.getParameterCount() != 0) {
          throw new ExtensionConfigurationException(
              "@McpServerUnderTest method " + m + " must take no parameters");
        }
        m.setAccessible(true);
        return m.invoke(Modifier.isStatic(m.getModifiers()) ? null : instance);
      }
      return null;
    } catch (ReflectiveOperationException e) {
      throw new ExtensionConfigurationException(
          "could not read @McpServerUnderTest of " + testClass.getName() + ": " + e, e);
    }
  }

  /**
   * @param checks the checks of the server under test
   * @param testClass the test class, for its {@link McpGateChecks} options
   * @return a survey test (when {@link McpGateChecks#requireGatedWrites()}), then a container per
   *     write tool with a test per check; a check that does not apply is aborted with the reason
   *     (or, with {@link McpGateChecks#showSkippedChecks()} false, named in the report only)
   */
  public static Stream<DynamicNode> tests(GateChecks checks, Class<?> testClass) {
    McpGateChecks options = options(testClass);
    List<DynamicNode> nodes = new ArrayList<>();
    nodes.add(
        DynamicTest.dynamicTest(
            "survey: every write tool is gated or declared safe",
            () -> {
              List<String> ungated = checks.ungatedWrites();
              if (!ungated.isEmpty()) {
                String message =
                    "write tools without an idempotency gate: "
                        + ungated
                        + "\n"
                        + checks.survey().table();
                if (options.requireGatedWrites()) {
                  throw new AssertionFailedError(message);
                }
                throw new TestAbortedException(message);
              }
            }));
    String currentTool = null;
    List<DynamicNode> current = new ArrayList<>();
    for (GateChecks.Planned p : checks.plan()) {
      if (!p.tool().equals(currentTool)) {
        if (currentTool != null) {
          nodes.add(DynamicContainer.dynamicContainer(currentTool, current));
        }
        currentTool = p.tool();
        current = new ArrayList<>();
      }
      if (p.skipped() != null && !options.showSkippedChecks()) {
        p.run().run(); // into the report only
        continue;
      }
      current.add(
          DynamicTest.dynamicTest(
              p.tool() + ": " + p.check(),
              () -> {
                p.run().run();
                if (p.skipped() != null) {
                  throw new TestAbortedException(p.skipped());
                }
              }));
    }
    if (currentTool != null) {
      nodes.add(DynamicContainer.dynamicContainer(currentTool, current));
    }
    return nodes.stream();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    GateChecks checks = context.getStore(NS).get(GateChecks.class, GateChecks.class);
    if (checks == null) {
      return;
    }
    String report = checks.report();
    List<String> ungated = checks.ungatedWrites();
    LOG.log(
        ungated.isEmpty() ? System.Logger.Level.INFO : System.Logger.Level.WARNING,
        "{0}: {1}",
        context.getRequiredTestClass().getSimpleName(),
        ungated.isEmpty()
            ? "every write tool is gated or declared safe"
            : "ungated writes (a retry may write twice): " + ungated);
    String dir = options(context.getRequiredTestClass()).reportDir();
    if (!dir.isBlank()) {
      Path file = Path.of(dir).resolve(context.getRequiredTestClass().getName() + ".txt");
      try {
        Files.createDirectories(file.getParent());
        Files.writeString(file, report, StandardCharsets.UTF_8);
        context.publishReportEntry("mcpgate-checks", file.toAbsolutePath().toString());
      } catch (IOException e) {
        LOG.log(System.Logger.Level.WARNING, "could not write the MCP Gate report " + file, e);
      }
    }
  }

  /** The Spring support, loaded only when Spring is on the class path. */
  private static final class Spring {
    static boolean present() {
      return load("org.springframework.context.ApplicationContext").isPresent();
    }

    static boolean isApplicationContext(Object o) {
      return load("org.springframework.context.ApplicationContext")
          .map(c -> c.isInstance(o))
          .orElse(false);
    }

    static GateChecks checks(Object context, String tenant) {
      return dev.mcpgate.testkit.spring.SpringGateChecks.of(
          (org.springframework.context.ApplicationContext) context, tenant);
    }

    static GateChecks checksOfSpringExtension(ExtensionContext context, String tenant) {
      Optional<Class<?>> spring =
          load("org.springframework.test.context.junit.jupiter.SpringExtension");
      if (spring.isEmpty()
          || AnnotationSupport.findRepeatableAnnotations(
                  context.getRequiredTestClass(), org.junit.jupiter.api.extension.ExtendWith.class)
              .stream()
              .flatMap(e -> Stream.of(e.value()))
              .noneMatch(spring.get()::equals)) {
        return null;
      }
      return dev.mcpgate.testkit.spring.SpringGateChecks.of(
          org.springframework.test.context.junit.jupiter.SpringExtension.getApplicationContext(
              context),
          tenant);
    }

    private static Optional<Class<?>> load(String name) {
      try {
        return Optional.of(
            Class.forName(name, false, McpGateChecksExtension.class.getClassLoader()));
      } catch (ClassNotFoundException | LinkageError e) {
        return Optional.empty();
      }
    }
  }
}
