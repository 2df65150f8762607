package dev.headway.okhttp.testing;

import okhttp3.Headers;

/**
 * A request as the test server received it.
 *
 * @param method the request method
 * @param target the request target (path and query)
 * @param headers the request headers
 * @param body the request body, as UTF-8
 */
public record Recorded(String method, String target, Headers headers, String body) {}
