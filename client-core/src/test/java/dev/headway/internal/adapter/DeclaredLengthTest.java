package dev.headway.internal.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link BodyHints#declaredLength} is every adapter's rule for when a throttled body has arrived
 * before its end: a length it reports that the body does not have would cut the hint short (or
 * the body a caller keeps), so anything but a plain length must be unknown.
 */
class DeclaredLengthTest {
  @Test
  void aPlainContentLengthIsTheLength() {
    assertThat(BodyHints.declaredLength("42", null, null)).hasValue(42);
    assertThat(BodyHints.declaredLength("0", "identity", null)).hasValue(0);
    assertThat(BodyHints.declaredLength(" 17 ", " Identity ", null)).hasValue(17);
    assertThat(BodyHints.declaredLength("999999999999999999", null, null))
        .hasValue(999_999_999_999_999_999L);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "-1", "-0", "+5", "5.0", "0x10", "abc", "5 5", "5,5", "5, 7",
      "5,", ",5", "99999999999999999999", "9223372036854775807",
      "9223372036854775808", "١٢", "5\u0000"})
  void aHostileContentLengthIsIgnored(String contentLength) {
    assertThat(BodyHints.declaredLength(contentLength, null, null)).isEmpty();
  }

  @Test
  void noContentLengthIsUnknown() {
    assertThat(BodyHints.declaredLength(null, null, null)).isEmpty();
    assertThat(BodyHints.declaredLength(-1, null, false)).isEmpty();
    assertThat(BodyHints.declaredLength(Long.MIN_VALUE, null, false)).isEmpty();
  }

  @Test
  void aTransferEncodingFramesTheBody() {
    assertThat(BodyHints.declaredLength("42", null, "chunked")).isEmpty();
    assertThat(BodyHints.declaredLength("42", null, "")).isEmpty();
    assertThat(BodyHints.declaredLength(42, null, true)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "GZIP", "deflate", "br", "identity, gzip", "gzip,identity",
      "x-unknown"})
  void anEncodedBodyHasNoKnownLength(String contentEncoding) {
    assertThat(BodyHints.declaredLength("42", contentEncoding, null)).isEmpty();
    assertThat(BodyHints.declaredLength(42, contentEncoding, false)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "identity", "IDENTITY", "identity, identity", ","})
  void anIdentityOrEmptyCodingLeavesTheLength(String contentEncoding) {
    assertThat(BodyHints.declaredLength("42", contentEncoding, null)).hasValue(42);
    assertThat(BodyHints.declaredLength(42, contentEncoding, false)).hasValue(42);
  }
}
