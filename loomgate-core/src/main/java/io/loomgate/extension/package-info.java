/**
 * What predicates and filters have in common as things configuration names: a factory that makes one from the
 * arguments written ({@link io.loomgate.extension.ExtensionFactory}), the registry of factories by name
 * ({@link io.loomgate.extension.ExtensionRegistry}) and the reader that checks argument values
 * ({@link io.loomgate.extension.ExtensionArgs}). JDK only; {@code filter} and {@code route} build on it.
 */
package io.loomgate.extension;
