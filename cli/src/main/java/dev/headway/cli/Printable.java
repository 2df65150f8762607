package dev.headway.cli;

/**
 * Makes server-supplied text safe to print on a terminal: control characters (C0, DEL, C1) are
 * replaced by {@code \xNN} escapes, so a hostile header cannot move the cursor or recolour the
 * screen.
 */
final class Printable {
  private Printable() {}

  /** Returns {@code text} with every control character escaped. */
  static String of(String text) {
    StringBuilder out = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean control = c < 0x20 || (c >= 0x7f && c <= 0x9f);
      if (control && out == null) {
        out = new StringBuilder(text.length() + 8).append(text, 0, i);
      }
      if (out != null) {
        if (control) {
          out.append(String.format("\\x%02x", (int) c));
        } else {
          out.append(c);
        }
      }
    }
    return out == null ? text : out.toString();
  }
}
