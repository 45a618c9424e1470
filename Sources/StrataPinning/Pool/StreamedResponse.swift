import Dispatch
import Foundation
import Strata
import StrataConnect

/// An HTTP/1.1 response body streamed from a pooled connection's thread to the task reading it,
/// with backpressure down to the socket: the thread reads from the connection only while the
/// ``BodyChannel`` takes more (at most its high watermark waits unread), and otherwise blocks on
/// its own thread until the reader asks again.
///
/// When the reader gives up before the end (``abandon()``), the connection is drained and kept
/// only if what is left is small: at most ``maxDrainBytes``, read within ``maxDrainWait`` and the
/// request's deadline. Otherwise it is closed; it is never reused with unread bytes on it.
final class StreamedResponse: Sendable {
    /// The most unread body bytes drained so a connection can be reused after its reader gave
    /// up: reading 64 KiB costs less than a new TLS handshake; past that, closing is cheaper.
    static let maxDrainBytes = 64 * 1024
    /// The longest a drain waits for the server: a stalled server is not worth a connection.
    static let maxDrainWait = Duration.seconds(1)
    /// The most body bytes handed over at once from what has already arrived: a fast body
    /// reaches its reader in pieces of up to this size (a wake-up of the reader each), not one
    /// per 16 KiB TLS record; a slow one still goes on as each read brings it. With the
    /// channel's 256 KiB high watermark, at most about 512 KiB of a body wait for their reader.
    static let maxGatheredBytes = 256 * 1024

    /// Called on a connection's thread each time its producer starts waiting for the reader (more
    /// than the channel's high watermark waits unread). For tests that measure what paused
    /// readers hold; nil, and nothing called, otherwise. Static rather than injected because the
    /// pool makes these deep inside a transport; its lock is taken once a pause, beside the
    /// semaphore wait that follows.
    static let waitingForReaderHook = LockedValue<(@Sendable () -> Void)?>(nil)

    private enum Phase {
        /// The head was handed over and the thread has not looked at the body yet: a reader that
        /// gives up now needs no interruption (the thread checks first, and drains or closes).
        case starting
        /// The thread is reading the connection, or about to; `drainable` when what is left of
        /// the body may be drained (a small `Content-Length` rest, or chunked).
        case reading(drainable: Bool)
        /// The thread waits for the reader to take what is buffered.
        case waitingForReader
        /// The body ended (or failed); the thread no longer reads it.
        case done
    }

    private struct State {
        var phase = Phase.starting
        var abandoned = false
    }

    /// What the reader's side must do after ``abandon()`` so the job ends soon.
    enum Interruption: Equatable {
        /// Nothing: the thread waits on the reader (it wakes and drains or closes) or is done.
        case none
        /// Abort the job now: the thread waits on the server for a body that will not be drained.
        case now
        /// Abort the job if it has not ended after this long: the thread is reading a body it
        /// may drain, but the server may have stalled.
        case after(Duration)
    }

    /// The hand-over to the reader.
    let channel: BodyChannel
    /// Finished once the job is over (the connection is back in the pool or closed), with the
    /// job's events for the caller's observers.
    let ended = ExchangeCompletion<[ConnectionEvent]>()
    private let state = LockedValue(State())
    /// Signalled by the channel when a paused thread may go on, or when the reader released it.
    private let demand = DispatchSemaphore(value: 0)

    /// Creates the hand-over; `channel`'s demand handler is taken over.
    init(channel: BodyChannel = BodyChannel()) {
        self.channel = channel
        let demand = demand
        channel.onDemand { demand.signal() }
    }

    // MARK: The reader's side

    /// Releases the body (the reader is done with it) and says whether the connection's read in
    /// progress must be interrupted (by aborting the job, which closes the connection) so the
    /// job ends soon.
    func abandon() -> Interruption {
        channel.release()
        return state.withLock { state in
            state.abandoned = true
            guard case .reading(let drainable) = state.phase else { return .none }
            return drainable ? .after(Self.maxDrainWait) : .now
        }
    }

    // MARK: On the connection's thread

    /// Hands the body of the response whose head `connection` just read to the reader as it asks;
    /// when the reader gives up, drains a small remainder or closes the connection.
    ///
    /// Failures (the server's, the deadline's) reach the reader through the channel and close the
    /// connection; `connection.isReusable` says afterwards whether it can be kept.
    func pump<Stream: ByteStream>(
        _ connection: inout HTTP1Connection<Stream>, deadline: ContinuousClock.Instant,
        now: () -> ContinuousClock.Instant = { .now }
    ) {
        while connection.isReadingBody {
            let drainable = Self.isDrainable(connection)
            let abandoned = state.withLock { state -> Bool in
                state.phase = .reading(drainable: drainable)
                return state.abandoned
            }
            if abandoned { break }
            let part: HTTP1Connection<Stream>.BodyPart
            do throws(HTTP1ExchangeError) {
                part = try connection.nextBodyPart(deadline: deadline, gatheringLimit: Self.maxGatheredBytes)
            } catch {
                end(throwing: error.error)
                return
            }
            switch part {
            case .end(let response):
                if !response.body.isEmpty { channel.yield(ArraySlice(response.body)) }
                end(throwing: nil)
                return
            case .bytes(let bytes):
                if channel.yield(ArraySlice(bytes)) { continue }
                if channel.isReleased { break }
                guard waitForReader(until: deadline) else {
                    connection.close()
                    end(
                        throwing: TransportError(
                            .timedOut,
                            message: "the whole-request deadline passed while the "
                                + "response body waited for its reader"))
                    return
                }
            }
            if channel.isReleased { break }
        }
        end(throwing: nil)
        guard connection.isReadingBody else { return }
        drain(&connection, deadline: min(deadline, now() + Self.maxDrainWait))
    }

    /// Waits until the reader took enough or released the body; false when `deadline` passed.
    private func waitForReader(until deadline: ContinuousClock.Instant) -> Bool {
        let abandoned = state.withLock { state -> Bool in
            state.phase = .waitingForReader
            return state.abandoned
        }
        if abandoned { return true }
        Self.waitingForReaderHook.withLock { $0 }?()
        let left = (deadline - .now).saturatingNanoseconds
        return left > 0 && demand.wait(timeout: .now() + .nanoseconds(Int(clamping: left))) == .success
    }

    private func end(throwing error: (any Error)?) {
        state.withLock { $0.phase = .done }
        channel.finish(throwing: error)
    }

    /// Whether what is left of the body may be drained: not when `Content-Length` says more
    /// than ``maxDrainBytes`` remain, nor when only the connection's close ends the body.
    private static func isDrainable<Stream: ByteStream>(_ connection: HTTP1Connection<Stream>) -> Bool {
        if let remaining = connection.remainingBodyBytes, remaining > maxDrainBytes { return false }
        return !connection.isReadingUntilClose
    }

    /// Reads and drops the rest of the body when it is small, so the connection can be reused;
    /// closes the connection otherwise.
    private func drain<Stream: ByteStream>(
        _ connection: inout HTTP1Connection<Stream>,
        deadline: ContinuousClock.Instant
    ) {
        guard Self.isDrainable(connection) else {
            connection.close()
            return
        }
        var drained = 0
        while connection.isReadingBody {
            do throws(HTTP1ExchangeError) {
                switch try connection.nextBodyPart(deadline: deadline) {
                case .bytes(let bytes): drained += bytes.count
                case .end: return
                }
            } catch {
                return // the connection closed itself
            }
            if drained > Self.maxDrainBytes {
                connection.close()
                return
            }
        }
    }
}
