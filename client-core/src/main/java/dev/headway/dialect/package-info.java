/**
 * The plug-in SPI for rate-limit header dialects: implement {@link dev.headway.dialect.Dialect}
 * to teach Headway a server's own header names.
 */
@NullMarked
package dev.headway.dialect;

import org.jspecify.annotations.NullMarked;
