/// Suspends until the calling task is cancelled, then throws `CancellationError`: the body of a
/// test double that never answers, with no timer behind it.
func suspendUntilCancelled() async throws {
    let gate = Gate()
    // A cancellation before the wait starts opens the gate first, so the wait returns at once.
    await withTaskCancellationHandler {
        await gate.wait()
    } onCancel: {
        gate.open()
    }
    try Task.checkCancellation()
}
