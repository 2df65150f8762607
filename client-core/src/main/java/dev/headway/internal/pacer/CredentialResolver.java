package dev.headway.internal.pacer;

import dev.headway.PartitionKeyResolver;
import dev.headway.RequestInfo;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Origin plus a keyed SHA-256 (HMAC) prefix of a credential header. The raw credential is hashed
 * and dropped; only 64 bits of the digest are kept in the key. The HMAC key is random per
 * resolver (keys differ between resolvers, so between processes), or a fleet's shared secret
 * (every instance given the same secret computes the same key, and a reader of the fleet's store
 * cannot test guesses of a credential without the secret). Thread-safe.
 *
 * <p>A randomly keyed resolver refuses to work for a pacer that shares its quota through a
 * store (each process would write keys of its own): the pacer's {@code build()} rejects it, and
 * one wrapped in a user's resolver is found by calling that resolver once at {@code build()}
 * ({@link #callsRandomKey}) and, if it is called only for some requests, by failing each call
 * made on behalf of such a pacer ({@link #resolveShared}).
 */
public final class CredentialResolver implements PartitionKeyResolver {
  private static final char[] HEX = "0123456789abcdef".toCharArray();
  private static final String HMAC = "HmacSHA256";

  /**
   * Set while a resolver runs for a pacer with a store; a randomly keyed resolver called then
   * marks it and throws.
   */
  private static final ThreadLocal<boolean @Nullable []> SHARED = new ThreadLocal<>();
  /** The mark of a call for a pacer with a store (written, never read: the call throws). */
  private static final boolean[] SHARED_CALL = new boolean[1];
  /** The request {@link #callsRandomKey} resolves. */
  private static final RequestInfo PROBE =
      RequestInfo.get(URI.create("https://headway-probe.invalid/"));

  private final String headerName;
  private final SecretKeySpec key;
  private final boolean shared;

  /** Creates a resolver for {@code headerName} with a fresh random key (this process only). */
  public CredentialResolver(String headerName) {
    this(headerName, null);
  }

  /**
   * Creates a resolver for {@code headerName} keyed with {@code secret} (UTF-8), or with a fresh
   * random key when null.
   */
  public CredentialResolver(String headerName, @Nullable String secret) {
    this.headerName = headerName;
    byte[] bytes;
    if (secret == null) {
      bytes = new byte[32];
      new SecureRandom().nextBytes(bytes);
    } else {
      bytes = secret.getBytes(StandardCharsets.UTF_8);
    }
    this.key = new SecretKeySpec(bytes, HMAC);
    this.shared = secret != null;
  }

  /** Whether every resolver given the same secret computes the same keys (a fleet's resolver). */
  public boolean stable() {
    return shared;
  }

  /**
   * Resolves {@code request} with {@code resolver} for a pacer that shares its quota through a
   * store: a randomly keyed credential resolver called inside throws {@link
   * IllegalStateException}.
   */
  public static String resolveShared(PartitionKeyResolver resolver, RequestInfo request) {
    if (SHARED.get() != null) {
      return resolver.resolve(request);
    }
    SHARED.set(SHARED_CALL);
    try {
      return resolver.resolve(request);
    } finally {
      SHARED.remove();
    }
  }

  /**
   * Returns whether {@code resolver} calls a randomly keyed credential resolver when it resolves
   * a plain {@code GET https://headway-probe.invalid/}. Whatever {@code resolver} throws on that
   * made-up request is ignored.
   */
  public static boolean callsRandomKey(PartitionKeyResolver resolver) {
    boolean[] called = new boolean[1];
    SHARED.set(called);
    try {
      resolver.resolve(PROBE);
    } catch (RuntimeException | LinkageError | StackOverflowError e) {
      // user code given a request it was not written for: only whether it called us counts
    } finally {
      SHARED.remove();
    }
    return called[0];
  }

  /** The message of a randomly keyed resolver used for a pacer with a store. */
  public String randomKeyInFleet(String where) {
    return where + " uses " + this + ", which keys its hashes at random per process, so no two"
        + " instances sharing the store would share a partition (each would write keys of its"
        + " own); use PartitionKeyResolver.originAndCredential(headerName, fleetSecret)";
  }

  @Override
  public String resolve(RequestInfo request) {
    boolean @Nullable [] sharedCall = shared ? null : SHARED.get();
    if (sharedCall != null) {
      sharedCall[0] = true;
      throw new IllegalStateException(randomKeyInFleet("a pacer with a store"));
    }
    String origin = OriginResolver.INSTANCE.resolve(request);
    Optional<String> credential = request.headers().firstValue(headerName);
    if (credential.isEmpty()) {
      return origin;
    }
    byte[] hash;
    try {
      Mac mac = Mac.getInstance(HMAC);
      mac.init(key);
      hash = mac.doFinal(credential.get().getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required of every Java platform", e);
    }
    StringBuilder k = new StringBuilder(origin.length() + 22).append(origin).append("#cred=");
    for (int i = 0; i < 8; i++) {
      k.append(HEX[(hash[i] >> 4) & 0xf]).append(HEX[hash[i] & 0xf]);
    }
    return k.toString();
  }

  @Override
  public String toString() {
    return "originAndCredential(" + headerName + (shared ? ", <fleet secret>)" : ")");
  }
}
