import CarveCLI
import CarveCore
#if canImport(Glibc)
import Glibc
#endif

// Arguments are read from argv with `ByteText`, not `CommandLine.arguments`: that
// replaces bytes that are not UTF-8 with U+FFFD, so such a snapshot path could not
// be named.
let arguments = (1..<Int(CommandLine.argc)).compactMap {
    CommandLine.unsafeArgv[$0].map { ByteText.decode(cString: $0) }
}
// carve runs on this machine by name: what is not handed in is no machine's (`NoMachine`).
let status = Services.$current.withValue(.system()) {
    DeletionServices.$current.withValue(.system()) { CarveMain.run(arguments) }
}
exit(status)
