package dev.headway.okhttp;

import java.net.URI;
import okhttp3.HttpUrl;
import org.jspecify.annotations.Nullable;

/**
 * Remembers the {@link URI}s of the last few URLs an interceptor saw, so that a call to a URL
 * seen recently (polling one resource, paging one endpoint, a client that calls few endpoints)
 * does not parse it again: parsing a URL into a {@code URI} is about a third of a kilobyte of
 * garbage per call. A call to a URL not held parses it ({@link OkHttpMessages#uri}) and takes
 * its slot.
 *
 * <p>A slot holds an immutable pair, replaced whole: readers see a complete pair or an older
 * one, never a mix, without locks (final fields). Lookups allocate nothing; {@link String#equals}
 * of the URL's canonical string decides a hit, so a hit gives exactly the URI a parse would.
 * Thread-safe.
 */
final class RecentUris {
  /** How many URLs are held (a power of two: slots by the string's hash). */
  static final int SLOTS = 32;

  private final @Nullable Entry[] slots = new Entry[SLOTS];

  private record Entry(String url, URI uri) {}

  /** Returns the URI of {@code url}, parsed now unless held. */
  URI uri(HttpUrl url) {
    String s = url.toString(); // OkHttp keeps the canonical string: no copy
    int h = s.hashCode();
    int i = (h ^ (h >>> 16)) & (SLOTS - 1);
    Entry e = slots[i];
    if (e != null && e.url.equals(s)) {
      return e.uri;
    }
    URI uri = OkHttpMessages.uri(url);
    slots[i] = new Entry(s, uri);
    return uri;
  }
}
