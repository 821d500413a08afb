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
        .target(name: "Separate"),
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
