package dev.mcpgate.boundaries;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No main source file of a {@code gate-*} module is longer than {@value #MOST_LINES} lines: a file
 * that grows past it holds more than one job and is split (issue 30). Reads the sources from the
 * checkout this module is built in.
 */
class MainFileSizeTest {
  static final int MOST_LINES = 400;

  @Test
  void noMainFileOfAGateModuleIsLongerThanTheLimit() throws IOException {
    Map<Path, Integer> sizes = mainFileSizes(Path.of("..").toAbsolutePath().normalize());
    assertThat(sizes).as("main sources of the gate-* modules").hasSizeGreaterThan(200);
    Map<Path, Integer> over = new TreeMap<>(sizes);
    over.values().removeIf(lines -> lines <= MOST_LINES);
    assertThat(over).as("main files of more than %d lines", MOST_LINES).isEmpty();
  }

  @Test
  void theCountSeesALongFile(@org.junit.jupiter.api.io.TempDir Path root) throws IOException {
    Path dir = Files.createDirectories(root.resolve("gate-x/runtime/src/main/java/dev/x"));
    Files.writeString(dir.resolve("Long.java"), "//\n".repeat(MOST_LINES + 1));
    Files.writeString(dir.resolve("Short.java"), "//\n".repeat(MOST_LINES));
    Path test = Files.createDirectories(root.resolve("gate-x/src/test/java/dev/x"));
    Files.writeString(test.resolve("LongTest.java"), "//\n".repeat(MOST_LINES + 1));
    Path other = Files.createDirectories(root.resolve("examples/src/main/java/dev/x"));
    Files.writeString(other.resolve("Example.java"), "//\n".repeat(MOST_LINES + 1));

    assertThat(mainFileSizes(root))
        .containsOnlyKeys(
            Path.of("gate-x/runtime/src/main/java/dev/x/Long.java"),
            Path.of("gate-x/runtime/src/main/java/dev/x/Short.java"))
        .containsEntry(Path.of("gate-x/runtime/src/main/java/dev/x/Long.java"), MOST_LINES + 1);
  }

  /** Lines per {@code .java} file under a {@code src/main/java} of a {@code gate-*} module. */
  private static Map<Path, Integer> mainFileSizes(Path root) throws IOException {
    Map<Path, Integer> sizes = new TreeMap<>();
    List<Path> modules;
    try (Stream<Path> children = Files.list(root)) {
      modules = children.filter(p -> p.getFileName().toString().startsWith("gate-")).toList();
    }
    for (Path module : modules) {
      try (Stream<Path> files = Files.walk(module)) {
        files
            .filter(p -> p.toString().endsWith(".java"))
            .filter(
                p -> root.relativize(p).toString().replace('\\', '/').contains("src/main/java/"))
            .forEach(p -> sizes.put(root.relativize(p), lineCount(p)));
      }
    }
    return sizes;
  }

  private static int lineCount(Path file) {
    try (Stream<String> lines = Files.lines(file)) {
      return (int) lines.count();
    } catch (IOException e) {
      throw new UncheckedIOException(file.toString(), e);
    }
  }
}
