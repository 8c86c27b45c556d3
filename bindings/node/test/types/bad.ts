// Must fail tsc --strict: an option the package does not have, a wrong value.
import { spawn } from "../../index.js";
spawn("sh", [], { cordon: { network: "everything", exposePaths: [] } });
