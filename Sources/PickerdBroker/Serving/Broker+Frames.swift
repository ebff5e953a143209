import Logging
import PickerdTransport
import PickerdWire

/// How pickerd reacts to each frame. Every row of `Protocol/README.md`'s reaction table (section 7)
/// is decided here or in the role handlers this calls, and nowhere else.
extension Broker: FrameHandler {
    func handle(_ frame: ReceivedFrame, from served: ServedConnection) -> ConnectionLoop.Verdict {
        let id = frame.envelope.requestId
        let connection = served.connection
        let log = served.logger
        switch served.phase {
        case .awaitingHello:
            return hello(frame, from: served)
        case .serving where served.role == .agent:
            // An agent's first request must register it (and only an accepted executable may).
            guard case .agentRegister(let registration)? = frame.envelope.body else {
                reply(connection, id, .error(ErrorInfo(code: .handshakeRequired, message: "an agent must register first (AgentRegister)")))
                return .close
            }
            if let refusal = refusal(of: frame) {
                reply(connection, id, .error(refusal))
                return .close
            }
            // An agent is accepted by its executable file (device and inode), not by a path.
            guard let exe = served.identity.executableFile(), configuration.agentExecutables.contains(where: { FileIdentity(path: $0) == exe }) else {
                log.warning("refused an agent", metadata: ["executable": "\(served.identity.executablePath ?? "unknown")"])
                reply(connection, id, .error(ErrorInfo(code: .permissionDenied,
                                                       message: "\(served.identity.executablePath ?? "this program") is not a picker agent pickerd accepts")))
                return .close
            }
            served.phase = .registeredAgent
            reply(connection, id, .agentRegistered(AgentRegistered(agentId: "\(served.identity.pid)")))
            let kind: SessionManager.AgentKind = registration.capabilities.contains(.terminal) ? .terminal
                : registration.capabilities.contains(.desktop) ? .desktop : .general
            log.info("picker agent registered", metadata: ["name": "\(registration.name)", "kind": "\(kind)"])
            sessions.registerAgent(connection, kind: kind)
            return .keepOpen
        case .serving, .registeredAgent:
            if let refusal = refusal(of: frame) {
                reply(connection, id, .error(refusal))
                return .keepOpen
            }
            let body = frame.envelope.body!
            if case .hello = body {
                reply(connection, id, .error(ErrorInfo(code: .invalidArgument, message: "hello was already exchanged on this connection")))
                return .keepOpen
            }
            switch served.role {
            case .client:
                // The caller must still be the one that connected; what presents, donates or
                // withdraws must also hold its connection alone (Documentation/design.md, "App identity and registration"; invariant I16).
                let releasesOrStores: Bool
                switch body {
                case .present, .donation, .withdrawDonations: releasesOrStores = true
                default: releasesOrStores = false
                }
                if let descriptor = connection.descriptor,
                   let change = served.identity.change(connection: descriptor, holders: releasesOrStores) {
                    log.warning("refused a request: the caller changed since it connected", metadata: ["why": "\(change)"])
                    reply(connection, id, .error(ErrorInfo(code: .permissionDenied, message: change)))
                    return .close
                }
                handleClient(body, descriptors: frame.descriptors, id: id, connection: connection, identity: served.identity, logger: log)
            case .agent:
                handleAgent(body, id: id, connection: connection)
            default:
                let answer = ControlHandler(broker: self, connection: connection, requestID: id, logger: log).handle(body)
                if let answer { reply(connection, id, answer) }
            }
            return .keepOpen
        }
    }

    /// The first frame: a hello for this socket's role, with a version both sides speak. Anything
    /// else fails the handshake, and the connection closes.
    private func hello(_ frame: ReceivedFrame, from served: ServedConnection) -> ConnectionLoop.Verdict {
        let id = frame.envelope.requestId
        let connection = served.connection
        guard case .hello(let hello)? = frame.envelope.body else {
            reply(connection, id, .error(ErrorInfo(code: .handshakeRequired, message: "the first message must be a hello")))
            return .close
        }
        if let refusal = refusal(of: frame) {
            reply(connection, id, .error(refusal))
            return .close
        }
        guard hello.role == served.role else {
            reply(connection, id, .error(ErrorInfo(code: .wrongRole, message: "this socket serves the \(served.role) role, not \(hello.role)")))
            return .close
        }
        do {
            let version = try ProtocolVersion.negotiate(peerMinimum: hello.minVersion, peerMaximum: hello.maxVersion)
            served.phase = .serving
            reply(connection, id, .helloReply(HelloReply(version: version, software: "pickerd \(Broker.version)",
                                                         maxFrameBytes: UInt64(connection.limits.maxBodyBytes),
                                                         maxFdsPerFrame: UInt32(connection.limits.maxDescriptors))))
            served.logger.debug("hello", metadata: ["software": "\(hello.software)"])
            return .keepOpen
        } catch {
            reply(connection, id, .error(ErrorInfo(code: .unsupportedVersion, message: error.message)))
            return .close
        }
    }

    /// What is wrong with a well-framed request before its kind is looked at, if anything: a kind
    /// this version does not know, request id 0, a hello after the hello, or descriptors the request
    /// does not use (they are closed when the frame goes).
    private func refusal(of frame: ReceivedFrame) -> ErrorInfo? {
        guard let body = frame.envelope.body else {
            return ErrorInfo(code: .unknownRequest,
                             message: "the envelope holds no message this pickerd knows (protocol version \(ProtocolVersion.current)); ask for another")
        }
        if frame.envelope.requestId == 0 {
            return ErrorInfo(code: .invalidArgument, message: "request_id 0 is reserved for errors about no request in particular; number requests from 1")
        }
        let used: Int
        switch body {
        case .present(let request): used = request.hasTerminal ? 1 : 0
        case .donation(let request):
            // As many as the asset's media name (each its own index): an app icon, artwork, an icon.
            var indices = Set<UInt32>()
            switch request.asset {
            case .genericMedia(let g)?: Item.Asset.genericMedia(g).forEachMedia { if $0.hasFd { indices.insert($0.fdIndex) } }
            case .stateOfMind(let s)?: Item.Asset.stateOfMind(s).forEachMedia { if $0.hasFd { indices.insert($0.fdIndex) } }
            case nil: break
            }
            used = indices.count
        default: used = 0
        }
        if frame.descriptors.count > used {
            return ErrorInfo(code: .invalidArgument, message: "\(frame.descriptors.count) descriptors came with a \(ControlHandler.name(body)) request, "
                             + "which uses \(used); they were closed")
        }
        return nil
    }

    func ended(_ served: ServedConnection) {
        switch served.role {
        case .client: sessions.clientGone(served.connection)
        case .agent where served.phase == .registeredAgent: sessions.agentGone(served.connection)
        default: break
        }
    }

    func hasWorkInProgress(_ served: ServedConnection) -> Bool {
        sessions.hasPresentation(from: served.connection)
    }
}
