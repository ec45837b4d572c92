package main

// Placeholder until this subcommand lands; its owner replaces this file.
func cmdFit(env *cliEnv, args []string) int { return env.usage("this command is not built yet") }

func cmdModels(env *cliEnv, args []string) int { return env.usage("this command is not built yet") }

