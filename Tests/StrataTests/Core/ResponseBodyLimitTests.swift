import Strata
import Testing

/// `ResponseBodyLimit` as a scope: where it holds and which one wins.
@Suite("ResponseBodyLimit scopes")
struct ResponseBodyLimitTests {
    @Test("the innermost scope wins, and no scope means none")
    func scopes() async {
        #expect(ResponseBodyLimit.current == nil)
        await ResponseBodyLimit.withMaxBytes(10) {
            #expect(ResponseBodyLimit.current == 10)
            await ResponseBodyLimit.withMaxBytes(1 << 30) { #expect(ResponseBodyLimit.current == 1 << 30) }
            await ResponseBodyLimit.withMaxBytes(-5) { #expect(ResponseBodyLimit.current == 0) }
        }
    }
}
