print("treelined")
