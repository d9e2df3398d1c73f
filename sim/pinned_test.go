package sim

// pinnedStreamValues are the first draws of NewStream(1, "pinned"):
// Float64, IntN(1000), Exp (ziggurat). Recorded once; they must never change.
var pinnedStreamValues = []string{"0.617328813063", "939", "2.589770087336"}
