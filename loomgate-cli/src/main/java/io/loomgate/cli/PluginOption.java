package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.Plugins;
import java.nio.file.Path;

/** {@code --plugins dir/}: given, it must exist; not given, {@code plugins/} beside the config is used if present. */
final class PluginOption {
    private PluginOption() {
    }

    static Plugins load(Path config, Path pluginsOption) throws ConfigException {
        if (pluginsOption != null) {
            return Plugins.load(pluginsOption, true);
        }
        Path parent = config.toAbsolutePath().getParent();
        return parent == null ? Plugins.NONE : Plugins.load(parent.resolve("plugins"), false);
    }
}
