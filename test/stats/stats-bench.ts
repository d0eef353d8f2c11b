// The stats tests stand on the suite's emulator bench: an emulator in this process, the command program
// run in-process against it, with a mirror file and a config folder of its own (emulator-bench.ts).

export { emulatorBench as statsBench, terminalEnv, type EmulatorBench as StatsBench } from '../helpers/emulator-bench.js';
