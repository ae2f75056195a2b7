package dev.mcpgate.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the README, the changelog and docs/ leads somewhere: the file exists, and
 * an anchor names a heading of that file as GitHub spells it. Links inside fenced code are not
 * links.
 */
class DocsLinksTest {
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$");

  @Test
  void everyRelativeLinkOfTheDocsLeadsToAFileAndAHeading() throws IOException {
    Path root = root();
    List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md")));
    pages.add(root.resolve("CHANGELOG.md"));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path page : pages) {
      List<String> lines = prose(page);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = LINK.matcher(lines.get(i));
        while (m.find()) {
          String target = m.group(1);
          if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
            continue; // https:, mailto: and the like
          }
          checked++;
          String problem = problem(page, target);
          if (problem != null) {
            broken.add(root.relativize(page) + ":" + (i + 1) + " " + target + ": " + problem);
          }
        }
      }
    }
    assertThat(checked).as("relative links found").isGreaterThan(20);
    assertThat(broken).as("links that lead nowhere").isEmpty();
  }

  @Test
  void headingsAreSpelledAsGitHubSpellsTheirAnchors() {
    assertThat(anchors(List.of("## What the caller gets"))).containsExactly("what-the-caller-gets");
    assertThat(anchors(List.of("### The claim, per dialect")))
        .containsExactly("the-claim-per-dialect");
    assertThat(anchors(List.of("### Memory: `maxmemory-policy`")))
        .containsExactly("memory-maxmemory-policy");
    assertThat(anchors(List.of("## Keys", "## Keys")))
        .as("a repeated heading gets a number")
        .containsExactly("keys", "keys-1");
    assertThat(anchors(List.of("### Operations: \"did we refund ord_9f2 twice?\"")))
        .containsExactly("operations-did-we-refund-ord_9f2-twice");
  }

  private static String problem(Path page, String target) throws IOException {
    int hash = target.indexOf('#');
    String file = hash < 0 ? target : target.substring(0, hash);
    String anchor = hash < 0 ? null : target.substring(hash + 1);
    Path to = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
    if (!Files.exists(to)) {
      return "no such file";
    }
    if (anchor == null || !to.toString().endsWith(".md")) {
      return null;
    }
    List<String> headings = new ArrayList<>();
    for (String line : prose(to)) {
      if (HEADING.matcher(line).matches()) {
        headings.add(line);
      }
    }
    return anchors(headings).contains(anchor) ? null : "no heading with that anchor";
  }

  /** The anchors GitHub gives these heading lines, in order. */
  private static Set<String> anchors(List<String> headingLines) {
    Set<String> anchors = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (String line : headingLines) {
      Matcher m = HEADING.matcher(line);
      if (!m.matches()) {
        continue;
      }
      String slug =
          m.group(1)
              .replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
              .toLowerCase(Locale.ROOT)
              .replaceAll("[^\\p{L}\\p{N}_ -]", "")
              .replace(' ', '-');
      int n = seen.merge(slug, 1, Integer::sum);
      anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
    }
    return anchors;
  }

  /** The page's lines, with those inside fenced code blocks blanked (their line numbers kept). */
  private static List<String> prose(Path page) throws IOException {
    List<String> lines = new ArrayList<>();
    boolean fenced = false;
    for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
      if (line.stripLeading().startsWith("```")) {
        fenced = !fenced;
        lines.add("");
      } else {
        lines.add(fenced ? "" : line);
      }
    }
    return lines;
  }

  private static Path root() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("mvnw"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("the repository root (with mvnw) above the working directory").isNotNull();
    return dir;
  }
}
