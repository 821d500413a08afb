// swift-tools-version:6.0
// concbench's Swift implementation: the kernels live in a library so the tests can
// call them directly; the executable only parses arguments and speaks the protocol.
import PackageDescription

let package = Package(
    name: "concbench-swift",
    products: [
        .executable(name: "concbench-swift", targets: ["concbench-swift"]),
    ],
    targets: [
        .target(name: "ConcbenchKernels"),
        .executableTarget(
            name: "concbench-swift",
            dependencies: ["ConcbenchKernels"]
        ),
        .testTarget(
            name: "ConcbenchKernelsTests",
            dependencies: ["ConcbenchKernels", "concbench-swift"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
