package dev.mcpgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link RedisUrls#withoutPassword}: no shape of URL lets its password through. */
class RedisUrlsTest {

  @Test
  void thePasswordOfEachUrlIsMaskedAndTheRestIsKept() {
    assertThat(RedisUrls.withoutPassword("redis://:s3cret@127.0.0.1:6379/0"))
        .isEqualTo("redis://***@127.0.0.1:6379/0");
    assertThat(RedisUrls.withoutPassword("rediss://app:s3cret@a:6379,redis://b:6380"))
        .isEqualTo("rediss://***@a:6379,redis://b:6380");
    assertThat(RedisUrls.withoutPassword("redis://a:7001, redis://:s3cret@b:7002"))
        .isEqualTo("redis://a:7001, redis://***@b:7002");
    assertThat(RedisUrls.withoutPassword("redis://127.0.0.1:6379"))
        .isEqualTo("redis://127.0.0.1:6379");
  }

  @Test
  void aPasswordWithASlashAnAtOrASpaceIsMaskedWhole() {
    assertThat(RedisUrls.withoutPassword("redis://:pa/ss@h:1")).isEqualTo("redis://***@h:1");
    assertThat(RedisUrls.withoutPassword("redis://:p@ss@h:1")).isEqualTo("redis://***@h:1");
    assertThat(RedisUrls.withoutPassword("redis://:pa ss@h:1")).isEqualTo("redis://***@h:1");
  }

  @Test
  void aPasswordWithACommaOrASchemeSeparatorIsMaskedWhole() {
    assertThat(RedisUrls.withoutPassword("redis://:pa,ss@h:1")).isEqualTo("redis://***@h:1");
    assertThat(RedisUrls.withoutPassword("redis://:p,a,ss@h:1,redis://h2:2"))
        .isEqualTo("redis://***@h:1,redis://h2:2");
    assertThat(RedisUrls.withoutPassword("redis://a:7001,redis://:pa,ss@b:7002"))
        .isEqualTo("redis://a:7001,redis://***@b:7002");
    assertThat(RedisUrls.withoutPassword("redis://:pa://ss@h:1")).isEqualTo("redis://***@h:1");
  }

  @Test
  void aUrlWithoutSchemeAndAnErrorMessageThatRepeatsTheUrlAreMaskedToo() {
    assertThat(RedisUrls.withoutPassword(":s3cret@h:1")).isEqualTo("***@h:1");
    assertThat(
            RedisUrls.withoutPassword(
                "Expected closing bracket for IPv6 address at index 35:"
                    + " redis://us:s3cret@[::1:6379"))
        .isEqualTo("Expected closing bracket for IPv6 address at index 35: redis://***@[::1:6379");
  }
}
