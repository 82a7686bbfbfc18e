import Foundation
import PackagePlugin

/// Turns the package's `Migrations/*.sql` and `Config/crated.json` into Swift source for the
/// target that uses the plugin. The files stay the single source of truth; the binary carries them.
@main
struct EmbedResources: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let migrationsDirectory = root.appending(path: "Migrations")
        let configFile = root.appending(path: "Config/crated.json")
        let migrationFiles = try FileManager.default
            .contentsOfDirectory(at: migrationsDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedResources.swift")
        return [
            .buildCommand(
                displayName: "Embedding migrations and default configuration",
                executable: try context.tool(named: "embed-resources").url,
                arguments: [output.path(), configFile.path()] + migrationFiles.map { $0.path() },
                inputFiles: [configFile] + migrationFiles,
                outputFiles: [output]
            )
        ]
    }
}
