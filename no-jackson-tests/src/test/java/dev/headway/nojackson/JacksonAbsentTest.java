package dev.headway.nojackson;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Guards the module's premise: no Jackson on the test class path. */
class JacksonAbsentTest {
  @Test
  void jacksonDatabindIsNotOnTheClassPath() {
    assertThatThrownBy(() -> Class.forName("com.fasterxml.jackson.databind.ObjectMapper"))
        .isInstanceOf(ClassNotFoundException.class);
    assertThatThrownBy(() -> Class.forName("com.fasterxml.jackson.core.JsonParser"))
        .isInstanceOf(ClassNotFoundException.class);
  }
}
