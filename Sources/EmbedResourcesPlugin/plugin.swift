import Foundation
import PackagePlugin

/// Compiles text resources into the target that uses the plugin, so an installed binary never has
/// to find resource folders beside itself (Bundle.module on Linux crashes when they are missing).
/// CratedCore gets the package's `Migrations/*.sql` and `Config/crated.json`; any other target gets
/// the files of its own `Resources/` folder. The files stay the single source of truth.
@main
struct EmbedResources: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        var files: [(name: String, url: URL)] = []
        if target.name == "CratedCore" {
            files += try listFiles(in: root.appending(path: "Migrations"), ending: "sql").map { ("Migrations/\($0.lastPathComponent)", $0) }
            files.append(("Config/crated.json", root.appending(path: "Config/crated.json")))
        } else if let sourceTarget = target as? SourceModuleTarget {
            // Subfolders keep their path in the name: `web/app.js` (the web client's assets).
            let resources = sourceTarget.directoryURL.appending(path: "Resources")
            for file in try listFiles(in: resources, ending: nil) {
                if isDirectory(file) {
                    files += try listFiles(in: file, ending: nil).filter { !isDirectory($0) }
                        .map { ("\(file.lastPathComponent)/\($0.lastPathComponent)", $0) }
                } else {
                    files.append((file.lastPathComponent, file))
                }
            }
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedResources.swift")
        return [
            .buildCommand(
                displayName: "Embedding resources into \(target.name)",
                executable: try context.tool(named: "embed-resources").url,
                arguments: [output.path()] + files.flatMap { [$0.name, $0.url.path()] },
                inputFiles: files.map(\.url),
                outputFiles: [output]
            )
        ]
    }

    private func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path(), isDirectory: &isDirectory) && isDirectory.boolValue
    }

    private func listFiles(in directory: URL, ending: String?) throws -> [URL] {
        guard FileManager.default.fileExists(atPath: directory.path()) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { ending == nil || $0.pathExtension == ending }
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}
