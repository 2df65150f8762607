package dev.headway.internal.pacer;

import dev.headway.PartitionKeyResolver;
import dev.headway.RequestInfo;
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
 */
public final class CredentialResolver implements PartitionKeyResolver {
  private static final char[] HEX = "0123456789abcdef".toCharArray();
  private static final String HMAC = "HmacSHA256";

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

  @Override
  public String resolve(RequestInfo request) {
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
