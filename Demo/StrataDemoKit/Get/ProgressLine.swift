import Foundation

/// The line `get -o FILE` keeps redrawing on standard error while a response downloads, when
/// standard error is a terminal: a spinner, the URL, the bytes received (of the total, when the
/// response announced one) and the rate; the seconds waited before the first byte.
///
/// It appears only after ``delayBeforeShowing`` (a quick response shows nothing), redraws every
/// ``refreshInterval``, and is erased when the download is over.
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
    /// What the body's reader counted.
    let progress: DownloadProgress

    /// The text of one redraw.
    ///
    /// - Parameters:
    ///   - received: Body bytes received so far.
    ///   - total: The body's length, when the response announced it.
    ///   - elapsed: Time since the request started.
    ///   - frame: The redraw's number, which picks the spinner's frame.
    func render(received: Int64, total: Int64?, elapsed: Duration, frame: Int) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var text = Self.erase + "\(Self.spinner[frame % Self.spinner.count]) \(label)  "
        guard received > 0 else { return text + String(format: "%.1f s", seconds) }
        text += Self.bytes(received)
        if let total, total > 0 {
            text += " of \(Self.bytes(total)) (\(Int(Double(received) * 100 / Double(total)))%)"
        }
        if seconds > 0 { text += "  \(Self.bytes(Int64(Double(received) / seconds)))/s" }
        return text
    }

    /// `512 B`, `1.5 KiB`, `12.0 MiB`, `1.1 GiB`.
    static func bytes(_ count: Int64) -> String {
        guard count >= 1024 else { return "\(count) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f ", value) + units[unit]
    }

    /// Redraws the line until the task is cancelled, then erases it if it was drawn.
    func run(clock: some Clock<Duration> = ContinuousClock()) async {
        let started = clock.now
        do {
            try await clock.sleep(for: Self.delayBeforeShowing)
        } catch {
            return // finished before the line was due: nothing to draw or erase
        }
        var frame = 0
        while !Task.isCancelled {
            let (received, total) = progress.snapshot
            let line = render(received: received, total: total, elapsed: started.duration(to: clock.now), frame: frame)
            output.writeError(Data(line.utf8))
            frame += 1
            do { try await clock.sleep(for: Self.refreshInterval) } catch { break }
        }
        output.writeError(Data(Self.erase.utf8))
    }
}
