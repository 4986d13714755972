import Foundation
import SluiceClient
import SluiceWire
import Synchronization

/// One run of a scenario: start (or find) the server, bring up the publishers, let the
/// players join at the join rate, sample once a second, then stop everything and assemble
/// the `LoadTestResult`.
public final class LoadTestRun: @unchecked Sendable {
    public let options: LoadTestOptions
    /// Where progress lines go (stderr in the executable).
    private let progress: ProgressPrinter
    /// The first URL: the publishers' and the spawned server's.
    private let url: LoopbackURL
    /// Every `--url`, checked, in order.
    private let urls: [LoopbackURL]

    public init(options: LoadTestOptions, progress: ProgressPrinter) throws {
        self.options = options
        self.progress = progress
        urls = try options.urls.map { text throws(OptionError) in try LoopbackURL(text) }
        guard let first = urls.first else { throw OptionError("--url needs at least one URL") }
        url = first
    }

    /// A player slot: the client once made, and how its join went.
    private final class PlayerSlot: @unchecked Sendable {
        let index: Int
        let publisher: Int
        /// Into the run's `urls`.
        let urlIndex: Int
        let client: LoadTestPlayer
        let state = Mutex<(started: UInt64?, joinedAt: UInt64?, error: String?, done: Bool)>((nil, nil, nil, false))

        init(index: Int, publisher: Int, urlIndex: Int, client: LoadTestPlayer) {
            self.index = index
            self.publisher = publisher
            self.urlIndex = urlIndex
            self.client = client
        }

        var joined: Bool { state.withLock { $0.joinedAt != nil } }
        var done: Bool { state.withLock { $0.done } }
    }

    public func run() async throws -> LoadTestResult {
        let startedAt = ISO8601DateFormatter().string(from: Date())
        do {
            try FileManager.default.createDirectory(atPath: options.outputDirectory, withIntermediateDirectories: true)
        } catch {
            throw LoadTestError.output("cannot create the --output folder \(options.outputDirectory) "
                                       + "(\((error as NSError).localizedDescription))")
        }

        // The server.
        var spawned: ServerProcess?
        if let path = options.spawnPath {
            var arguments: [String] = []
            if let config = options.spawnConfig {
                switch options.target {
                case .sluice: arguments = ["--config", config]
                // Janus: the main file, and its folder for the plugins' and transports' files.
                case .janus: arguments = ["-C", config, "-F", (config as NSString).deletingLastPathComponent]
                }
            }
            let server = try ServerProcess(path: path, arguments: arguments, cpus: options.spawnCPUs,
                                           logPath: (options.outputDirectory as NSString).appendingPathComponent("server.log"))
            spawned = server
            progress.note("spawned \(path) (pid \(server.pid)); waiting for "
                          + (options.target == .sluice ? "/health" : "its WebSocket port"))
            do {
                if options.target == .sluice {
                    try await server.waitUntilHealthy(host: url.host, port: url.port, seconds: 30)
                } else {
                    try await server.waitUntilListening(host: url.host, port: url.port, seconds: 30)
                }
            } catch {
                server.stop()
                throw error
            }
        }
        defer {
            if let spawned {
                let status = spawned.stop()
                progress.note("server stopped (exit status \(status))")
            }
        }
        let serverPID = spawned?.pid ?? options.serverPID
        let sampler = serverPID.map { ServerSampler(pid: $0) }
        if let sampler, sampler.read() == nil {
            throw LoadTestError.server("cannot read /proc/\(sampler.pid)/stat: no such process?")
        }

        let workers = try MediaWorkerPool(count: options.workers)
        defer { workers.stop() }
        let backend: LoadTestBackend
        switch options.target {
        case .sluice: backend = SluiceBackend(options: options, publisherURL: url)
        case .janus: backend = try await JanusBackend.prepare(options: options, url: url)
        }

        // Publishers, all at once: players need their streams.
        let publishers = (0..<options.publishers).map { backend.makePublisher(index: $0) }
        let publisherErrors = Mutex<[Int: String]>([:])
        await withTaskGroup(of: Void.self) { group in
            for publisher in publishers {
                group.addTask { [options] in
                    let deadline = MonotonicClock.nowMicros() + UInt64(options.joinTimeoutSeconds * 1e6)
                    do {
                        try await publisher.join(workers: workers, deadline: deadline)
                    } catch {
                        publisherErrors.withLock { $0[publisher.index] = "\(error)" }
                    }
                }
            }
        }
        for (index, error) in publisherErrors.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            progress.note("publisher \(index) failed: \(error)")
        }

        // Players, at the join rate, round robin over the publishers, and each publisher's
        // players round robin over the URLs.
        let slots = (0..<options.expectedPlayers).map { i in
            let publisher = i % options.publishers
            let urlIndex = PlayerPlacement.urlIndex(player: i, publishers: options.publishers, urls: urls.count)
            return PlayerSlot(index: i, publisher: publisher, urlIndex: urlIndex,
                              client: backend.makePlayer(index: i, publisher: publishers[publisher], url: urls[urlIndex]))
        }
        let testerCPUStart = Self.testerProcessCPUMicros()
        let clientCPUStart = workers.cpuMicros()
        let t0 = MonotonicClock.nowMicros()
        let firstReading = sampler?.read()
        let joins = Task { [options] in
            await withTaskGroup(of: Void.self) { group in
                for slot in slots {
                    let startAt = t0 + UInt64(Double(slot.index) / options.joinRate * 1e6)
                    group.addTask {
                        let now = MonotonicClock.nowMicros()
                        if startAt > now { try? await Task.sleep(nanoseconds: (startAt - now) * 1000) }
                        let started = MonotonicClock.nowMicros()
                        slot.state.withLock { $0.started = started }
                        if let error = publisherErrors.withLock({ $0[slot.publisher] }) {
                            slot.state.withLock { $0.error = "its publisher failed: \(error)"; $0.done = true }
                            return
                        }
                        do {
                            try await slot.client.join(workers: workers,
                                                       deadline: started + UInt64(options.joinTimeoutSeconds * 1e6))
                            let first = slot.client.probe.firstPacketMicros ?? MonotonicClock.nowMicros()
                            slot.state.withLock { $0.joinedAt = first; $0.done = true }
                        } catch {
                            slot.state.withLock { $0.error = "\(error)"; $0.done = true }
                        }
                    }
                }
            }
        }

        // Sample once a second until the duration is over and every join has finished.
        var samples: [RunSample] = []
        var previousDelays = DelayDistribution()
        var previous = (at: t0, packets: UInt64(0), cpu: firstReading?.cpuMicros)
        var maxRSS = firstReading?.rssBytes ?? 0
        var steadyStart: (at: UInt64, packets: UInt64, cpu: UInt64?)?
        var steadyDelays: DelayDistribution?
        let end = t0 + UInt64(options.durationSeconds * 1e6)
        var nextSample = t0 + 1_000_000
        while true {
            let now = MonotonicClock.nowMicros()
            let allDone = slots.allSatisfy(\.done)
            if now >= end && allDone { break }
            let wake = min(nextSample, max(end, now + 100_000))
            if wake > now { try? await Task.sleep(nanoseconds: (wake - now) * 1000) }
            guard MonotonicClock.nowMicros() >= nextSample else { continue }
            nextSample += 1_000_000

            let sample = takeSample(slots: slots, t0: t0, previous: &previous, previousDelays: &previousDelays,
                                    sampler: sampler, maxRSS: &maxRSS)
            samples.append(sample)
            if steadyStart == nil && slots.allSatisfy(\.done) {
                steadyStart = (previous.at, previous.packets, previous.cpu)
                steadyDelays = previousDelays
            }
            progress.update(sample, expected: options.expectedPlayers)
        }
        _ = await joins.value
        // The measured span ends here, before anything is torn down: at the last sample when
        // it was just taken, else at a closing one.
        if samples.isEmpty || MonotonicClock.nowMicros() - previous.at > 250_000 {
            samples.append(takeSample(slots: slots, t0: t0, previous: &previous, previousDelays: &previousDelays,
                                      sampler: sampler, maxRSS: &maxRSS))
        }
        if let last = samples.last { progress.finish(last, expected: options.expectedPlayers) }
        let tEnd = previous.at
        let clientCPUEnd = workers.cpuMicros()
        let testerCPUEnd = Self.testerProcessCPUMicros()

        // Final figures, then teardown.
        let publisherFigures = publishers.map { p -> PublisherFigures in
            let counts = p.sentCounts()
            return PublisherFigures(index: p.index, stream: p.streamName,
                                    joined: publisherErrors.withLock { $0[p.index] == nil },
                                    error: publisherErrors.withLock { $0[p.index] },
                                    packetsSent: counts.packets, sendFailures: counts.failures, keyFramesSent: counts.keyFrames)
        }
        var merged = DelayDistribution()
        let playerFigures = slots.map { slot -> PlayerFigures in
            slot.client.probe.addDelays(to: &merged)
            return figures(for: slot, url: urls[slot.urlIndex])
        }

        await withTaskGroup(of: Void.self) { group in
            for slot in slots { group.addTask { await slot.client.stop() } }
        }
        await withTaskGroup(of: Void.self) { group in
            for publisher in publishers { group.addTask { await publisher.stop() } }
        }
        await backend.finish()

        let measured = Double(tEnd - t0) / 1e6
        let totalContinuity = playerFigures.filter(\.joined).reduce(ContinuityCounts()) { $0 + $1.continuity }
        let joinTimes = playerFigures.compactMap(\.joinMillis).sorted()
        let totals = LoadTestResult.Totals(
            expectedPlayers: options.expectedPlayers,
            joinedPlayers: playerFigures.filter(\.joined).count,
            failedPlayers: playerFigures.filter { !$0.joined }.count,
            continuity: totalContinuity,
            packetsPerSecond: measured > 0 ? Double(totalContinuity.packets) / measured : 0,
            keyFrames: playerFigures.reduce(0) { $0 + $1.keyFrames },
            layerSwitches: playerFigures.reduce(0) { $0 + $1.layerSwitches },
            joinMillisP50: Percentile.nearestRank(sorted: joinTimes, 0.5),
            joinMillisP99: Percentile.nearestRank(sorted: joinTimes, 0.99),
            perURL: URLFigures.tally(playerFigures, urls: urls.map(\.url.absoluteString)))

        var server: LoadTestResult.ServerFigures?
        if let serverPID, let startCPU = firstReading?.cpuMicros, let endCPU = previous.cpu {
            let cpu = endCPU >= startCPU ? endCPU - startCPU : 0
            var steadyPerPacket: Double?
            var steadySeconds: Double?
            if let steadyStart, let steadyCPU = steadyStart.cpu, previous.packets > steadyStart.packets, endCPU >= steadyCPU {
                steadyPerPacket = Double(endCPU - steadyCPU) / Double(previous.packets - steadyStart.packets)
                steadySeconds = Double(tEnd - steadyStart.at) / 1e6
            }
            server = LoadTestResult.ServerFigures(
                pid: serverPID, spawned: spawned != nil, cpuSeconds: Double(cpu) / 1e6,
                cpuMicrosPerPacket: totalContinuity.packets > 0 ? Double(cpu) / Double(totalContinuity.packets) : nil,
                steadyCPUMicrosPerPacket: steadyPerPacket, steadySeconds: steadySeconds,
                meanCPUPercent: measured > 0 ? Double(cpu) / 1e6 / measured * 100 : 0,
                maxRSSBytes: maxRSS)
        }

        var problems: [String] = []
        for p in publisherFigures where !p.joined { problems.append("publisher \(p.index): did not publish: \(p.error ?? "")") }
        for p in playerFigures {
            for problem in p.problems { problems.append("player \(p.index) (\(p.stream)): \(problem)") }
        }
        let histogramTop = max(merged.percentileMicros(0.999) ?? 0, DelayDistribution.bucketMicros * 40)
        let steadyDelay = steadyDelays.map { LoadTestResult.DelayFigures(merged.subtracting($0)) }
        let steadySeconds = steadyStart.map { Double(tEnd - $0.at) / 1e6 }
        let clientCPU = clientCPUEnd >= clientCPUStart ? Double(clientCPUEnd - clientCPUStart) / 1e6 : nil
        var tester: LoadTestResult.TesterFigures?
        if let testerCPUStart, let testerCPUEnd, testerCPUEnd >= testerCPUStart {
            tester = .init(cpuSeconds: Double(testerCPUEnd - testerCPUStart) / 1e6, packets: totalContinuity.packets,
                           mediaCPUSeconds: clientCPU, measuredSeconds: measured)
        }
        return LoadTestResult(
            target: options.target, startedAt: startedAt, options: options, url: url.url.absoluteString,
            urls: urls.map(\.url.absoluteString),
            measuredSeconds: measured, publishers: publisherFigures, players: playerFigures, totals: totals,
            delay: .init(merged), steadyDelay: steadyDelay, steadySeconds: steadySeconds, delayHistogram: merged.bins(40, upToMicros: histogramTop), server: server,
            clientCPUSeconds: clientCPU, tester: tester,
            delaySource: options.playerReceive == .headers ? .serverAbsSendTime : .publisherPayloadStamp,
            samples: samples, problems: problems)
    }

    private func takeSample(slots: [PlayerSlot], t0: UInt64, previous: inout (at: UInt64, packets: UInt64, cpu: UInt64?),
                            previousDelays: inout DelayDistribution, sampler: ServerSampler?,
                            maxRSS: inout Int64) -> RunSample {
        let now = MonotonicClock.nowMicros()
        var counts = ContinuityCounts()
        var delays = DelayDistribution()
        var joined = 0
        for slot in slots {
            counts = counts + slot.client.probe.counts
            slot.client.probe.addDelays(to: &delays)
            if slot.joined { joined += 1 }
        }
        let interval = delays.subtracting(previousDelays)
        previousDelays = delays
        let reading = sampler?.read()
        let seconds = Double(now - previous.at) / 1e6
        var cpuPercent: Double?
        if let reading, let before = previous.cpu, seconds > 0 {
            cpuPercent = Double(reading.cpuMicros >= before ? reading.cpuMicros - before : 0) / 1e6 / seconds * 100
        }
        if let reading { maxRSS = max(maxRSS, reading.rssBytes) }
        let sample = RunSample(
            elapsedSeconds: Double(now - t0) / 1e6, joinedPlayers: joined, packetsReceived: counts.packets,
            packetsPerSecond: seconds > 0 ? Double(counts.packets - min(counts.packets, previous.packets)) / seconds : 0,
            lost: counts.lost, delayP99Micros: interval.percentileMicros(0.99),
            serverCPUPercent: cpuPercent, serverCPUMicros: reading?.cpuMicros, serverRSSBytes: reading?.rssBytes)
        previous = (now, counts.packets, reading?.cpuMicros ?? previous.cpu)
        return sample
    }

    /// This process's CPU time (every thread: media, signaling, sampling), from /proc.
    private static func testerProcessCPUMicros() -> UInt64? {
        (try? ProcessStat.read(pid: getpid()))?.cpuMicros(ticksPerSecond: ProcessStat.ticksPerSecond)
    }

    private func figures(for slot: PlayerSlot, url: LoopbackURL) -> PlayerFigures {
        let state = slot.state.withLock { $0 }
        let probe = slot.client.probe.finalState
        let events = slot.client.events.snapshot
        var delays = DelayDistribution()
        delays.add(probe.video.delay)
        delays.add(probe.audio.delay)
        delays.add(probe.stampedDelay)
        let joinMillis: Double? = state.joinedAt.flatMap { joined in
            state.started.map { Double(joined >= $0 ? joined - $0 : 0) / 1000 }
        }
        let size = probe.video.lastKeyFrameSize
        return PlayerFigures(
            index: slot.index, stream: slot.client.streamName, url: url.url.absoluteString, joined: state.joinedAt != nil,
            error: state.error ?? (state.done ? nil : "still joining at the end"), joinMillis: joinMillis,
            continuity: ContinuityCounts(video: probe.video, audio: probe.audio, packets: probe.packets),
            videoPackets: probe.video.packets, audioPackets: probe.audio.packets, keyFrames: probe.video.keyFrames,
            lastKeyFrameWidth: size?.width, lastKeyFrameHeight: size?.height,
            layerChanges: events.layerChanges, layerSwitches: events.layerSwitches, lastLayer: events.lastLayer,
            delayP50Micros: delays.percentileMicros(0.5), delayP99Micros: delays.percentileMicros(0.99),
            ended: events.ended ?? probe.failure.map { "transport: \($0)" })
    }
}
