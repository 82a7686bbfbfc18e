/// The version printed by `crated --version` and sent in the User-Agent.
public enum CratedVersion {
    public static let current = "0.1.0"
}
