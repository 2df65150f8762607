package dev.headway.cli;

import dev.headway.HttpFields;
import java.util.List;
import java.util.Objects;

/**
 * One HTTP response as the command read it: status, header fields and a prefix of the body.
 *
 * @param status the status code, in [100, 999]
 * @param fields the header fields, in arrival order
 * @param body a prefix of the body (at most {@link dev.headway.SignalParser#MAX_BODY_BYTES});
 *     empty when there is none
 * @param notes what in the input was not taken as sent (lines ignored, folded lines joined),
 *     each as {@code "field: message"}
 */
record RawResponse(int status, HttpFields fields, byte[] body, List<String> notes) {

  RawResponse {
    if (status < 100 || status > 999) {
      throw new IllegalArgumentException("status must be in [100, 999] but was " + status);
    }
    Objects.requireNonNull(fields, "fields must not be null");
    Objects.requireNonNull(body, "body must not be null");
    notes = List.copyOf(notes);
  }
}
