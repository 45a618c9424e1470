/// What one child task of a hedged request's task group reports to the request's task.
enum HedgeRaceStep<Answer: Sendable>: Sendable {
    /// Attempt `attempt` (0 for the first, `n` for hedge `n`) answered or failed.
    case answered(attempt: Int, Result<Answer, any Error>)
    /// The delay before hedge `hedge` ended: it is due.
    case hedgeDue(Int)
    /// A delay was cancelled: the request ended before it.
    case timerCancelled
}
