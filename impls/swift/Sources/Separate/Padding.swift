// Fields written by different threads are kept apart by a cache line: otherwise a write by one
// side takes the line from the other at every request (false sharing), and on two cores a queue's
// client and its handler would spend more time moving lines than logging and running calls.

@usableFromInline
struct Padding {
    @usableFromInline var bytes: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    @usableFromInline init() {}
}
