import StrataPinning

/// Orders certificates leaf first when they form one chain, as `pin --cert` prints them.
///
/// The order follows names (each certificate's issuer is the next one's subject); it does not
/// check signatures, which OpenSSL does when a chain is verified. Certificates that do not form
/// one chain keep the order they were given in.
enum ChainOrder {
    /// `certificates` without repeats, leaf first when they form one chain.
    ///
    /// - Returns: The certificates, and whether they form one chain (never for a single one).
    static func leafFirst(_ certificates: [Certificate]) -> (certificates: [Certificate], isChain: Bool) {
        var unique: [Certificate] = []
        for certificate in certificates where !unique.contains(certificate) { unique.append(certificate) }
        guard unique.count > 1 else { return (unique, false) }
        // The leaf issues nothing here: no other certificate names it as issuer.
        let leaves = unique.filter { candidate in
            !unique.contains { $0 != candidate && $0.issuer == candidate.subject }
        }
        guard leaves.count == 1, let leaf = leaves.first else { return (unique, false) }
        var chain = [leaf]
        while let last = chain.last, last.issuer != last.subject,
            let next = unique.first(where: { $0.subject == last.issuer && !chain.contains($0) })
        {
            chain.append(next)
        }
        return chain.count == unique.count ? (chain, true) : (unique, false)
    }
}
