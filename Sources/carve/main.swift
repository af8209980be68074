import CarveCLI
#if canImport(Glibc)
import Glibc
#endif

exit(CarveMain.run(Array(CommandLine.arguments.dropFirst())))
