#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Entry point: `describe` prints the table of what this binary serves; otherwise
/// check the command line against that table, say hello, run the iterations.
/// Exit status 2 for bad usage (one stderr line, nothing on stdout), 1 if a kernel
/// failed, 0 otherwise.
@main
struct ConcbenchSwift {
    static func main() {
        let argv = Array(CommandLine.arguments.dropFirst())
        if argv == ["describe"] {
            ProtocolWriter.describe()
            exit(0)
        }
        let plan: Plan
        let args: Arguments
        do {
            args = try Arguments.parse(argv)
            plan = try Catalog.plan(for: args, ownsProcess: true)
        } catch {
            ProtocolWriter.log(error.message)
            exit(2)
        }
        ProtocolWriter.hello(model: args.model)
        exit(drive(plan, iterations: args.iterations) ? 0 : 1)
    }
}
