// swift-tools-version:6.0
// concbench's Swift implementation: the kernels live in a library so the tests can
// call them directly; the executable only parses arguments and speaks the protocol.
import PackageDescription

let package = Package(
    name: "concbench-swift",
    products: [
        .executable(name: "concbench-swift", targets: ["concbench-swift"]),
        // SCOOP/Qs's execution model as a library of its own: handlers, separate blocks on one or
        // several of them, queues of queues (seed 001). Usable without the rest of the package.
        .library(name: "Separate", targets: ["Separate"]),
    ],
    targets: [
        // A separate block's body, a query, a reservation run on the caller's executor (the pool)
        // without the executor switch a plain nonisolated async function asks for at every call.
        // Exclusivity is not checked at run time in the runtime's hot paths: its state is owned by
        // one thread at a time by construction (the guarantees tests check that), and the checks
        // cost a tenth of a handler's time.
        .target(name: "Separate", swiftSettings: [
            .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
            .unsafeFlags(["-enforce-exclusivity=unchecked"]),
        ]),
        .target(name: "ConcbenchKernels", dependencies: ["Separate"]),
        .executableTarget(
            name: "concbench-swift",
            dependencies: ["ConcbenchKernels", "Separate"]
        ),
        .testTarget(
            name: "SeparateTests",
            dependencies: ["Separate"]
        ),
        .testTarget(
            name: "ConcbenchKernelsTests",
            dependencies: ["ConcbenchKernels", "concbench-swift"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
