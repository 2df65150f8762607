package dev.headway.jdk;

import dev.headway.HttpFields;
import java.util.Locale;

/** Recognises JSON media types ({@code application/json}, {@code application/*+json}). */
final class ContentTypes {
  private ContentTypes() {}

  static boolean isJson(HttpFields headers) {
    return headers.firstValue("Content-Type").map(ContentTypes::isJson).orElse(false);
  }

  static boolean isJson(String contentType) {
    int semicolon = contentType.indexOf(';');
    String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon))
        .trim().toLowerCase(Locale.ROOT);
    return type.equals("application/json") || (type.startsWith("application/")
        && type.endsWith("+json"));
  }
}
