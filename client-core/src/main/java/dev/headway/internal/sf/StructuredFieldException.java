package dev.headway.internal.sf;

/** Thrown when a field value is not a valid structured field of the requested type. */
public final class StructuredFieldException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Creates an exception saying what was wrong and at which character offset. */
  public StructuredFieldException(String message, int offset) {
    super(message + " at offset " + offset, null, false, false);
  }
}
