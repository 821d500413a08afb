/// threadring (SCOOP/Qs paper, from the Benchmarks Game): R entities in a ring pass a
/// token decremented at every hop; the one that receives 0 reports its id. Every hop
/// is a hand-off to another entity, and nothing per hop accumulates (no await chain).
public enum Threadring {
    /// `streams` (default): a task per entity on its own AsyncStream. `actors`: a Node
    /// actor per entity whose mailbox stream is drained by one long-lived task.
    /// `best-handoff` (not the paper's program; issue 26): a task per entity, every one isolated to
    /// one actor on an executor thread of its own, and a hop resumes the successor's continuation
    /// directly: the woken task runs on that thread as soon as the waker suspends, with no stream and
    /// no thread woken.
    public enum SCShape: String, CaseIterable, Sendable {
        case streams
        case actors
        case bestHandoff = "best-handoff"
    }

    /// `serial-queue`: a serial queue per entity, a hop is `async` on the successor's.
    public enum GCDShape: String, CaseIterable, Sendable {
        case serialQueue = "serial-queue"
    }

    static func result(_ id: Int) -> String {
        "id=\(id)"
    }
}
