package dev.headway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** HttpFields as the parser and users read it: case-insensitive, every line, in order. */
class HttpFieldsTest {
  @Test
  void namesAreCaseInsensitiveAndEveryValueIsKeptInOrder() {
    HttpFields fields = HttpFields.of("Content-Type", "application/json",
        "RateLimit", "\"a\";r=1", "X-Custom-Name", "x", "ratelimit", "\"b\";r=2");

    assertThat(fields.values("RATELIMIT")).containsExactly("\"a\";r=1", "\"b\";r=2");
    assertThat(fields.firstValue("content-type")).hasValue("application/json");
    assertThat(fields.firstValue("x-custom-name")).hasValue("x");
    assertThat(fields.contains("X-CUSTOM-NAME")).isTrue();
    assertThat(fields.contains("retry-after")).isFalse();
    assertThat(fields.values("retry-after")).isEmpty();
    assertThat(fields.firstValue("retry-after")).isEmpty();
    assertThat(fields.names()).containsExactly("content-type", "ratelimit", "x-custom-name");
    assertThat(fields.names()).hasSize(3).contains("ratelimit").doesNotContain("RateLimit");
    assertThat(fields.size()).isEqualTo(3);
    assertThat(fields.asMap()).containsExactly(
        Map.entry("content-type", List.of("application/json")),
        Map.entry("ratelimit", List.of("\"a\";r=1", "\"b\";r=2")),
        Map.entry("x-custom-name", List.of("x")));
  }

  @Test
  void equalFieldsAreEqualWhateverTheCaseOfTheirNames() {
    HttpFields a = HttpFields.of("Retry-After", "5", "Date", "d");
    HttpFields b = HttpFields.of(Map.of("retry-after", List.of("5"), "DATE", List.of("d")));

    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a).isNotEqualTo(HttpFields.of("Retry-After", "6", "Date", "d"));
    assertThat(HttpFields.of()).isSameAs(HttpFields.empty());
  }

  @Test
  void aBuilderUsedAgainAfterBuildDoesNotChangeWhatItBuilt() {
    HttpFields.Builder builder = HttpFields.builder(1).add("Retry-After", "5");
    HttpFields first = builder.build();

    HttpFields second = builder.add("Retry-After", "6").add("Date", "d").build();

    assertThat(first.values("retry-after")).containsExactly("5");
    assertThat(first.contains("date")).isFalse();
    assertThat(second.values("retry-after")).containsExactly("5", "6");
    assertThat(second.firstValue("date")).hasValue("d");
  }

  @Test
  void manyLinesAreReadTheSameWayAsAFew() {
    HttpFields.Builder builder = HttpFields.builder();
    for (int i = 0; i < 100; i++) {
      builder.add("X-Field-" + (i % 40), String.valueOf(i));
    }
    HttpFields fields = builder.build();

    assertThat(fields.size()).isEqualTo(40);
    assertThat(fields.names()).hasSize(40).first().isEqualTo("x-field-0");
    assertThat(fields.values("X-FIELD-3")).containsExactly("3", "43", "83");
    assertThat(fields.firstValue("x-field-39")).hasValue("39");
    assertThat(fields.contains("x-field-40")).isFalse();
  }

  @Test
  void aNegativeExpectedSizeIsRejectedNamingTheField() {
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> HttpFields.builder(-1))
        .withMessage("expectedLines must not be negative but was -1");
  }

  @Test
  void joinedIsTheFieldsLinesJoinedOrNullWhenAbsent() {
    String value = "\"default\";r=10;t=60";
    HttpFields fields = HttpFields.of("RateLimit", value, "Vary", "Accept", "vary", "Origin");
    assertThat(fields.joined("ratelimit")).as("one line: the value itself").isSameAs(value);
    assertThat(fields.joined("VARY")).isEqualTo("Accept, Origin");
    assertThat(fields.joined("retry-after")).isNull();
    String[] many = new String[2 * 70];
    for (int i = 0; i < 70; i++) {
      many[2 * i] = "X-Field-" + i;
      many[2 * i + 1] = "v" + i;
    }
    many[2 * 69] = "X-Field-3"; // a second line of the same field, among many fields
    HttpFields large = HttpFields.of(many);
    assertThat(large.joined("x-field-3")).isEqualTo("v3, v69");
    assertThat(large.joined("x-field-4")).isEqualTo("v4");
    assertThat(large.joined("x-field-99")).isNull();
    for (String name : List.of("ratelimit", "vary", "retry-after")) {
      List<String> lines = fields.values(name);
      assertThat(fields.joined(name))
          .isEqualTo(lines.isEmpty() ? null : String.join(", ", lines));
    }
  }
}
