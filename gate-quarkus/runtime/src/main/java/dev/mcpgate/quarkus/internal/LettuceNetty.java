package dev.mcpgate.quarkus.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Optional;
import java.util.Properties;

/**
 * Whether the Lettuce on the application's class path can run on its Netty. Lettuce 7 is built on
 * Netty 4.2; Quarkus 3.27 pins Netty 4.1, on which Lettuce 7 builds its client and then fails at
 * the first connection ({@code NoClassDefFoundError:
 * io/netty/channel/MultiThreadIoEventLoopGroup}). Checked when the Redis store is selected, so that
 * the startup stops naming the fix (Lettuce 6.8.1) instead of the first call. Reads only resources
 * and class names through the given loader: it loads no Lettuce or Netty class.
 */
final class LettuceNetty {
  /**
   * A class that Netty 4.2 has and Netty 4.1 lacks, and that Lettuce 7 uses for its event loops.
   */
  static final String NETTY_42_CLASS = "io.netty.channel.MultiThreadIoEventLoopGroup";

  /** The Lettuce that runs on Netty 4.1, as measured with Quarkus 3.27.2 (Netty 4.1.130.Final). */
  static final String LETTUCE_FOR_NETTY_41 = "6.8.1.RELEASE";

  private static final String LETTUCE_POM = "META-INF/maven/io.lettuce/lettuce-core/pom.properties";
  private static final String NETTY_VERSIONS = "META-INF/io.netty.versions.properties";

  private LettuceNetty() {}

  /**
   * @param loader the application's class loader
   * @return why Lettuce cannot run here, naming the fix; empty when it can, or when the Lettuce
   *     version cannot be read
   */
  static Optional<String> problem(ClassLoader loader) {
    String lettuce = property(loader, LETTUCE_POM, "version");
    if (lettuce == null || major(lettuce) < 7 || present(loader, NETTY_42_CLASS)) {
      return Optional.empty();
    }
    String netty = nettyVersion(loader);
    return Optional.of(
        "mcpgate.store=redis: Lettuce "
            + lettuce
            + " (io.lettuce:lettuce-core) needs Netty 4.2, and the application has Netty "
            + (netty == null ? "4.1" : netty)
            + " (the one Quarkus pins), which lacks "
            + NETTY_42_CLASS
            + ": every Redis call would fail with NoClassDefFoundError. Pin Lettuce "
            + LETTUCE_FOR_NETTY_41
            + " in the application's pom: <dependency><groupId>io.lettuce</groupId>"
            + "<artifactId>lettuce-core</artifactId><version>"
            + LETTUCE_FOR_NETTY_41
            + "</version></dependency> (docs/quarkus.md, \"The Redis store\")");
  }

  /**
   * @param loader the application's class loader
   * @return which Lettuce and which Netty the loader has, such as {@code Lettuce 6.8.1.RELEASE on
   *     Netty 4.1.130.Final}, for the startup log
   */
  static String describe(ClassLoader loader) {
    String lettuce = property(loader, LETTUCE_POM, "version");
    String netty = nettyVersion(loader);
    return "Lettuce "
        + (lettuce == null ? "(version unknown)" : lettuce)
        + " on Netty "
        + (netty == null ? "(version unknown)" : netty);
  }

  /**
   * @return the leading number of a version such as {@code 7.7.0.RELEASE}, or 0
   */
  static int major(String version) {
    int end = 0;
    while (end < version.length() && Character.isDigit(version.charAt(end))) {
      end++;
    }
    return end == 0 ? 0 : Integer.parseInt(version.substring(0, end));
  }

  private static boolean present(ClassLoader loader, String className) {
    return loader.getResource(className.replace('.', '/') + ".class") != null;
  }

  /**
   * @return the version of netty-common, from the version files of Netty's jars (each lists its
   *     own), or null
   */
  private static String nettyVersion(ClassLoader loader) {
    try {
      for (URL url : java.util.Collections.list(loader.getResources(NETTY_VERSIONS))) {
        String version = property(url, "netty-common.version");
        if (version != null) {
          return version;
        }
      }
    } catch (IOException e) {
      return null;
    }
    return null;
  }

  private static String property(ClassLoader loader, String resource, String key) {
    URL url = loader.getResource(resource);
    return url == null ? null : property(url, key);
  }

  private static String property(URL url, String key) {
    Properties p = new Properties();
    try (InputStream in = url.openStream()) {
      p.load(in);
    } catch (IOException e) {
      return null; // unreadable: cannot tell, so no verdict
    }
    String value = p.getProperty(key);
    return value == null || value.isBlank() ? null : value.strip();
  }
}
