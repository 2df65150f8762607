package dev.headway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Configuration values that could never take effect fail when given, saying what is wrong: a
 * declared partition with a port no request can have, a credential header name no request can
 * carry, a null setting.
 */
class ValuesThatCanNeverMatchTest {
  private static final ClientPolicy TB = ClientPolicy.tokenBucket("tb", 5, Duration.ofSeconds(1));

  @Test
  void aDeclaredPartitionWithAPortOutOfRangeIsRejected() {
    for (String name : new String[] {"api.example.com:99999", "https://api.example.com:65536",
        "api.example.com:0"}) {
      Pacer.Builder builder = Pacer.builder().declare(name, TB);
      assertThatThrownBy(builder::build).as(name).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(name).hasMessageContaining("1 to 65535");
    }
    assertThat(Pacer.builder().declare("api.example.com:65535", TB).build()).isNotNull();
  }

  @Test
  void aCredentialHeaderNameThatIsNotAFieldNameIsRejected() {
    for (String name : new String[] {"Bad Header", "Authorization:", " Authorization",
        "X-Tenant\n"}) {
      assertThatThrownBy(() -> PartitionKeyResolver.originAndCredential(name)).as(name)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("headerName must be a field name");
      assertThatThrownBy(() -> PartitionKeyResolver.originAndCredential(name,
          "0123456789abcdef0123")).as(name).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("headerName must be a field name");
    }
    assertThat(PartitionKeyResolver.originAndCredential("X-Api-Key")).isNotNull();
    assertThat(PartitionKeyResolver.originAndCredential("authorization")).isNotNull();
  }

  @Test
  void aNullSettingSaysWhatIsWrong() {
    assertThatThrownBy(() -> Pacer.builder().maxWait(null))
        .isInstanceOf(NullPointerException.class).hasMessage("maxWait must not be null");
    assertThatThrownBy(() -> Pacer.builder().strategy(null))
        .isInstanceOf(NullPointerException.class).hasMessage("strategy must not be null");
  }
}
