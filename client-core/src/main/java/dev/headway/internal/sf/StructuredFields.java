package dev.headway.internal.sf;

import java.util.List;
import java.util.Map;

/**
 * Parses RFC 9651 structured field values (Lists, Dictionaries, Items). Several field lines of
 * one field are joined with {@code ", "} by the caller before parsing (RFC 9651 section 4.2).
 *
 * <p>Parsing is linear in the input's length and never throws anything but
 * {@link StructuredFieldException}. Thread-safe (stateless).
 */
public final class StructuredFields {
  private StructuredFields() {}

  /** Parses an sf-list. */
  public static List<Member> parseList(String input) throws StructuredFieldException {
    throw new UnsupportedOperationException("TODO: structured field parser");
  }

  /** Parses an sf-dictionary; the map keeps the members' order. */
  public static Map<String, Member> parseDictionary(String input)
      throws StructuredFieldException {
    throw new UnsupportedOperationException("TODO: structured field parser");
  }

  /** Parses an sf-item. */
  public static Item parseItem(String input) throws StructuredFieldException {
    throw new UnsupportedOperationException("TODO: structured field parser");
  }
}
