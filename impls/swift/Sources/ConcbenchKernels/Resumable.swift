/// A suspended task's continuation, either kind: the faithful shapes keep checked ones, the
/// best-handoff shapes unsafe ones (no allocation per suspension); the state they share is
/// generic over this.
protocol Resumable<Value> {
    associatedtype Value
    func resume(returning value: sending Value)
}

extension CheckedContinuation: Resumable where E == Never {}
extension UnsafeContinuation: Resumable where E == Never {}
