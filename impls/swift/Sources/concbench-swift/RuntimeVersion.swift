/// The compiler this binary was built with, for the protocol's `hello` line.
/// `#if compiler` is the only build-time source of the version that needs no
/// build script; releases newer than this table report themselves as "6.4+".
#if compiler(>=6.4)
let runtimeVersion = "Swift 6.4+"
#elseif compiler(>=6.3.3)
let runtimeVersion = "Swift 6.3.3+"
#elseif compiler(>=6.3.2)
let runtimeVersion = "Swift 6.3.2"
#elseif compiler(>=6.3.1)
let runtimeVersion = "Swift 6.3.1"
#elseif compiler(>=6.3)
let runtimeVersion = "Swift 6.3"
#elseif compiler(>=6.2)
let runtimeVersion = "Swift 6.2"
#elseif compiler(>=6.1)
let runtimeVersion = "Swift 6.1"
#else
let runtimeVersion = "Swift 6.0"
#endif
