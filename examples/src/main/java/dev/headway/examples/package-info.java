/** Runnable examples of Headway, and the demo the README runs. */
package dev.headway.examples;
