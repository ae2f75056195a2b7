package dev.mcpgate.core.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.InvalidArgumentsException;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Finding of an adversarial review of the byte budgets (failed on 86e7ca6): a list of two wide
 * objects with long names made the layout of their names allocate about six times its characters,
 * past the canonical-bytes budget, before the call was refused.
 */
class HashAllocationReviewTest {
  @Test
  void aRepeatedWideObjectDoesNotAllocateSixTimesTheCanonicalBudget() {
    Map<String, Object> wide = new LinkedHashMap<>();
    for (int i = 0; i < 300; i++) {
      wide.put(String.format("%06d", i) + "n".repeat(49_994), 0);
    }
    Map<String, Object> arguments = Map.of("items", List.of(wide, wide));
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().getId();
    long before = threads.getThreadAllocatedBytes(id);

    assertThatThrownBy(() -> ArgumentHasher.hash(arguments, Set.of()))
        .isInstanceOf(InvalidArgumentsException.class);

    assertThat(threads.getThreadAllocatedBytes(id) - before)
        .isLessThan(2L * CanonicalJson.MAX_CANONICAL_BYTES);
  }
}
