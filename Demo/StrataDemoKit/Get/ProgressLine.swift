import Foundation

/// The line `get -o FILE` keeps redrawing on standard error while a slow response is on its way,
/// when standard error is a terminal: a spinner, the URL and the time so far.
///
/// It appears only after ``delayBeforeShowing`` (a quick response shows nothing), redraws
/// every ``refreshInterval``, and is erased when the response is complete. Transports hand over
/// a body whole, so it counts time rather than bytes.
struct ProgressLine: Sendable {
    /// How long a request runs before the line appears.
    static let delayBeforeShowing: Duration = .milliseconds(400)
    /// How often the line is redrawn.
    static let refreshInterval: Duration = .milliseconds(100)
    private static let spinner = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
    /// `\r` and erase-in-line (ECMA-48 EL): the cursor back to the start of an empty line.
    static let erase = "\r\u{1B}[K"

    /// What is being received, such as `GET https://localhost:8443/v1/export`.
    let label: String
    let output: DemoOutput

    /// The text of one redraw.
    ///
    /// - Parameters:
    ///   - elapsed: Time since the request started.
    ///   - frame: The redraw's number, which picks the spinner's frame.
    func render(elapsed: Duration, frame: Int) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Self.erase + "\(Self.spinner[frame % Self.spinner.count]) \(label)  " + String(format: "%.1f s", seconds)
    }

    /// Redraws the line until the task is cancelled, then erases it if it was drawn.
    func run(clock: some Clock<Duration> = ContinuousClock()) async {
        let started = clock.now
        do {
            try await clock.sleep(for: Self.delayBeforeShowing)
        } catch {
            return   // finished before the line was due: nothing to draw or erase
        }
        var frame = 0
        while !Task.isCancelled {
            output.writeError(Data(render(elapsed: started.duration(to: clock.now), frame: frame).utf8))
            frame += 1
            do { try await clock.sleep(for: Self.refreshInterval) } catch { break }
        }
        output.writeError(Data(Self.erase.utf8))
    }
}
