import Foundation
import Glibc
import SluiceLoadTest

// sluice-loadtest: see `LoadTestOptions.usage` and docs/benchmarks.md, "Load tester".
// Exit status: 0 done (and, with --assert-no-loss, no problem found); 1 --assert-no-loss found
// a problem, or the run could not go ahead; 2 bad flags.

signal(SIGPIPE, SIG_IGN)

let options: LoadTestOptions
do {
    options = try LoadTestOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch let error {
    if error == OptionError.help {
        print(LoadTestOptions.usage)
        exit(0)
    }
    fputs("sluice-loadtest: \(error)\n", stderr)
    exit(2)
}

let progress = ProgressPrinter()
do {
    let run = try LoadTestRun(options: options, progress: progress)
    let result = try await run.run()
    let paths = try ResultWriter.write(result, to: options.outputDirectory)
    print(SummaryTable.render(result), terminator: "")
    print("wrote \(paths.json) and \(paths.html)")
    if options.assertNoLoss && !result.problems.isEmpty {
        fputs("sluice-loadtest: --assert-no-loss: \(result.problems.count) problem(s), first: \(result.problems[0])\n", stderr)
        exit(1)
    }
    exit(0)
} catch {
    fputs("sluice-loadtest: \(error)\n", stderr)
    exit(1)
}
