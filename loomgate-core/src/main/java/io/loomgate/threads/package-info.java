/** Thread models and the one factory that turns them into executors. JDK only. */
package io.loomgate.threads;
