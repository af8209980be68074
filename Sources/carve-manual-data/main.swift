// Prints the data carve's man pages are generated from (see ManualData);
// run by Scripts/man, never installed.
import CarveCLI

print(ManualData.json(), terminator: "")
