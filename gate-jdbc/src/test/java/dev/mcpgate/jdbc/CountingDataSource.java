package dev.mcpgate.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** Wraps a real data source and counts the statements executed through it (round trips). */
final class CountingDataSource {
  private final AtomicInteger executed = new AtomicInteger();
  private final DataSource counting;

  CountingDataSource(DataSource real) {
    this.counting =
        proxy(
            DataSource.class,
            real,
            (target, method, args) -> {
              Object result = invoke(target, method, args);
              return result instanceof Connection c
                  ? proxy(Connection.class, c, this::connection)
                  : result;
            });
  }

  DataSource dataSource() {
    return counting;
  }

  int executed() {
    return executed.get();
  }

  void reset() {
    executed.set(0);
  }

  private Object connection(Object target, java.lang.reflect.Method method, Object[] args)
      throws Throwable {
    Object result = invoke(target, method, args);
    if (result instanceof PreparedStatement ps) {
      return proxy(PreparedStatement.class, ps, this::statement);
    }
    if (result instanceof Statement st) {
      return proxy(Statement.class, st, this::statement);
    }
    return result;
  }

  private Object statement(Object target, java.lang.reflect.Method method, Object[] args)
      throws Throwable {
    if (method.getName().startsWith("execute")) {
      executed.incrementAndGet();
    }
    return invoke(target, method, args);
  }

  private interface Handler {
    Object handle(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable;
  }

  private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args)
      throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static <T> T proxy(Class<T> type, Object target, Handler handler) {
    InvocationHandler h = (p, method, args) -> handler.handle(target, method, args);
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h));
  }
}
