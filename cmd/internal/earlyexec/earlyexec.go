// Package earlyexec hands a command line of reflect-engine's to it while the lean reflect is
// still initialising its packages, before it has paid for the rest of them. Importing it (for
// its init, from cmd/reflect alone) is all it takes.
//
// Package cli hands the same command lines over from Main (engineline.Runs), after every
// package of the lean reflect has initialised: go-git, its crypto, yaml, cobra… 2.9 ms of a
// `reflect history search` of 21 ms (median of 21 interleaved runs on 2,000 archived
// sessions: 20.95 ms from Main, 18.06 ms from here; reflect-engine run directly: 16.72 ms).
// Go initialises, among the packages whose imports are done, the first by import path; this
// package imports only os, syscall and engineline (which imports nothing), so it runs right
// after os, about the 20th package of ~300.
//
// It hands over only where that is sure to be what Main would do: on Linux, where
// os.Executable is the file itself, symbolic links resolved (/proc/self/exe), with
// reflect-engine beside that file. Otherwise, or when the exec fails, init returns and Main
// does what it always does, with its errors and the engine built from a source checkout.
package earlyexec
