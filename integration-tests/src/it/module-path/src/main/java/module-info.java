/** A consumer on the module path: requires Headway's JDK adapter like any JPMS application. */
module consumer.modular {
  requires dev.headway.jdk;
  requires jdk.httpserver;
}
