package dev.mcpgate.quarkus.internal;

import io.quarkus.runtime.annotations.Recorder;
import java.util.List;
import java.util.function.Supplier;

/** Carries what the build found about the gated tools into the application. */
@Recorder
public class GateRecorder {

  /**
   * @param methods one line per gated tool method, as {@link GatedTools#line} writes it
   * @return the gated tools of the application
   */
  public Supplier<GatedTools> gatedTools(List<String> methods) {
    List<String> copy = List.copyOf(methods);
    return () -> new GatedTools(copy);
  }
}
