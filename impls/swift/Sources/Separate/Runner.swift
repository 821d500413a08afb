// A runner: a long-lived task that carries a handler through an act (a call that is a client
// itself, which may suspend) and through the rest of the handler's loop after it, until the handler
// parks; then it waits, suspended, for the next act of any handler. So no act creates a task once
// the runtime has as many runners as acts in flight, and a handler with plain calls only never needs
// one: the pool runs it as a plain work item.

final class Runner: @unchecked Sendable {
    let runtime: Runtime
    // Written before the runner is resumed, read after: the resumption orders them.
    private var next: (HandlerCore, @Sendable (AnyObject, Client) async -> Void)?
    private var continuation: UnsafeContinuation<Void, Never>?

    init(runtime: Runtime) { self.runtime = runtime }

    nonisolated(nonsending) func serve(_ handler: HandlerCore, _ act: @escaping @Sendable (AnyObject, Client) async -> Void) async {
        var (handler, act) = (handler, act)
        while true {
            await act(handler.target, handler.actingClient())
            if case .act(let following) = handler.proceed() {
                act = following
                continue
            }
            guard let work = await wait() else { return }
            (handler, act) = work
        }
    }

    /// Suspends until an act is handed to this runner (nil: the runtime shut down).
    private nonisolated(nonsending) func wait() async -> (HandlerCore, @Sendable (AnyObject, Client) async -> Void)? {
        await _unsafeInheritExecutor_withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            runtime.pool.whenSuspended {
                self.continuation = continuation
                self.runtime.keep(self)
            }
        }
        defer { next = nil }
        return next
    }

    func resume(with work: (HandlerCore, @Sendable (AnyObject, Client) async -> Void)?) {
        next = work
        let continuation = self.continuation!
        self.continuation = nil
        continuation.resume()
    }
}
