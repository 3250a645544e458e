package main

func tiles() {}
