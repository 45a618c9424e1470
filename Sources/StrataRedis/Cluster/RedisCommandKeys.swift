/// Which arguments of a command are keys, so a cluster client can send it to the node serving
/// their slot: the commands ``RedisETagStore`` sends, and no others.
///
/// A command this table does not know is refused (``RedisClientError/unroutableCommand(_:)``)
/// rather than guessed: a multi-key command sent whole to one node fails with `CROSSSLOT`, and a
/// keyless one sent where a key was expected would read the wrong node. A store that starts
/// sending a new command adds it here.
enum RedisCommandKeys: Hashable, Sendable {
    /// No key: `SCAN`. Goes to the node the caller names.
    case none
    /// The first argument is the only key: `GET`, `SET`, `PEXPIRE`.
    case first
    /// Every argument is a key and the reply counts them: `DEL`, `UNLINK`, `EXISTS`. Keys of
    /// different slots are sent as one command per slot, and the counts are added up.
    case allCounted

    /// The keys of `command`.
    ///
    /// - Throws: ``RedisClientError/unroutableCommand(_:)`` for a command not in the table, or
    ///   one that lacks the key it should have.
    init(of command: RedisCommand) throws(RedisClientError) {
        switch command.name.uppercased() {
        case "SCAN": self = .none
        case "GET", "SET", "PEXPIRE": self = .first
        case "DEL", "UNLINK", "EXISTS": self = .allCounted
        default: throw .unroutableCommand(command.name)
        }
        guard self == .none || command.arguments.count >= 2 else { throw .unroutableCommand(command.name) }
    }

    /// `command` as one or more commands that each touch a single slot, with that slot (`nil`
    /// for a keyless command), in the order of its keys' first appearance.
    static func split(_ command: RedisCommand) throws(RedisClientError) -> [(slot: Int?, command: RedisCommand)] {
        switch try RedisCommandKeys(of: command) {
        case .none:
            return [(nil, command)]
        case .first:
            return [(RedisHashSlot.of(command.arguments[1]), command)]
        case .allCounted:
            var order: [Int] = []
            var keysBySlot: [Int: [RedisArgument]] = [:]
            for key in command.arguments.dropFirst() {
                let slot = RedisHashSlot.of(key)
                if keysBySlot[slot] == nil { order.append(slot) }
                keysBySlot[slot, default: []].append(RedisArgument(bytes: key))
            }
            return order.map { slot in (slot, RedisCommand(command.name, arguments: keysBySlot[slot] ?? [])) }
        }
    }
}
